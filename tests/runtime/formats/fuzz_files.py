"""Corrupt- and hostile-file fuzzer for every file kind dy2st reads.

Kinds: ``pdmodel``, ``pdiparams``, ``pdiparams.info`` (read as one model trio by
``load_model_from_bytes``, the other two files intact), ``pdparams`` and ``pdopt`` (written to a
file and read by ``paddle.load``). Each case is either a mutation of a real file (Paddle 3.3.1
fixtures and ``fuzz_seeds/``: bit flips, interesting bytes and 4/8-byte integers, truncation,
deleted/duplicated/inserted runs, splices), or made by a structure-aware hostile generator
(self-referencing containers, deep nesting, huge claimed lengths/shapes/counts/memo indices,
object and structured dtypes, BUILD on allowed globals, hash flooding, copy amplification,
opcode soup; huge/negative dims, LoD and desc sizes in .pdiparams; extreme attributes, block
cycles and bad references in .pdmodel).

Cases are numbered and derived from ``(seed, kind, number)`` alone, so a worker process makes
its own cases and a failure is reproducible from its number. Workers run batches of cases under
``RLIMIT_AS``; for each case a worker reports the outcome, the seconds it took and its peak RSS
growth (``VmHWM`` reset through ``/proc/self/clear_refs``). The parent restarts a worker that
crashed or went silent for ``--timeout`` seconds and records that case as a crash or a hang.

Outcomes: ``ok`` (loaded; a model's program verifies), ``error`` (a ModelFormatError naming the
file), and the faults: ``escape`` (any other exception type), ``unnamed`` (our error without the
file's name), ``wrapped`` (a foreign exception that only the loader's last-resort wrapper turned
into ours), ``memory`` (a MemoryError, or peak growth above 96 MiB + 48 x the bytes read),
``hang`` and ``crash``.

Long run (the figures noted on issue 12)::

    python -m tests.runtime.formats.fuzz_files --cases 100000 --kind all --workers 2

``--kind json`` fuzzes Paddle 3's PIR program file (``prefix.json``, fixtures in
tests/fixtures/paddle-3.3.1-pir) the same way; it is not part of ``all``.

The test suite runs a fixed-seed slice through `run` (tests/runtime/formats/test_file_fuzz.py).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import pickle
import random
import resource
import select
import struct
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "paddle-3.3.1"
SEEDS = HERE / "fuzz_seeds"
KINDS = ("pdmodel", "pdiparams", "pdiparams.info", "pdparams", "pdopt")
# Paddle 3's PIR program (prefix.json + prefix.pdiparams), read by runtime/formats/pir_json.py: fuzzed on
# request (--kind json), not part of "all"
EXTRA_KINDS = ("json",)
PIR_FIXTURES = ROOT / "tests" / "fixtures" / "paddle-3.3.1-pir"
FAULTS = ("escape", "unnamed", "wrapped", "memory", "hang", "crash")
# the peak RSS a case may add: 1.5 x what safe_pickle budgets (MEMORY_BASE + MEMORY_FACTOR x size), since
# its budget counts Python object sizes and the process also pays the allocator's overhead
MEMORY_SLACK = 96 << 20
MEMORY_PER_BYTE = 48


# ====================================================================================================
# the seed files
# ====================================================================================================

def model_trios():
    """``[(name, {"pdmodel": bytes, "pdiparams": bytes, "pdiparams.info": bytes or None})]``."""
    out = []
    for d in sorted(FIXTURES.iterdir()):
        if (d / "model.pdmodel").exists():
            read = lambda k: (d / f"model.{k}").read_bytes() if (d / f"model.{k}").exists() else None  # noqa: E731
            out.append((d.name, {k: read(k) for k in ("pdmodel", "pdiparams", "pdiparams.info")}))
    return out


def pickle_seeds(kind):
    """Real Paddle 3.3.1 files of ``kind`` (.pdparams/.pdopt) plus what our paddle.save writes."""
    seeds = [p.read_bytes() for p in sorted(SEEDS.glob(f"*.{kind}"))]
    import numpy as np
    if kind == "pdparams":
        state = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.zeros(3, np.float32),
                 "StructuredToParameterName@@": {"w": "linear_0.w_0", "b": "linear_0.b_0"}}
    else:
        state = {"w_moment1_0": np.ones((2, 2), np.float32), "beta1_pow_acc_0": np.array([0.9], np.float32),
                 "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.05}}
    for protocol in (2, 4):
        seeds.append(pickle.dumps(state, protocol=protocol))
    return seeds


# ====================================================================================================
# mutation
# ====================================================================================================

INTERESTING_8 = (0, 1, 0x7F, 0x80, 0xFF, 0x08, 0x0A, 0x12, 0x2E, 0x28, 0x85, 0x94, 0x95)
INTERESTING_INT = (0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 62, 2 ** 63 - 1, 2 ** 64 - 1, 5 << 30)


def mutate(data: bytes, rng: random.Random, others=()) -> bytes:
    b = bytearray(data or b"")
    for _ in range(rng.choice((1, 1, 1, 2, 3, 4))):
        kind = rng.randrange(9) if b else 5
        i = rng.randrange(len(b)) if b else 0
        if kind == 0:       # flip bits
            b[i] ^= 1 << rng.randrange(8)
        elif kind == 1:     # an interesting byte
            b[i] = rng.choice(INTERESTING_8)
        elif kind == 2:     # truncate
            del b[i:]
        elif kind == 3:     # delete a run
            del b[i:i + rng.randrange(1, 17)]
        elif kind == 4:     # duplicate a run
            b[i:i] = b[i:i + rng.randrange(1, 17)]
        elif kind == 5:     # insert random bytes
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
        elif kind == 6:     # an interesting 4- or 8-byte little-endian integer (lengths, counts, indices)
            n = rng.choice((4, 8))
            v = rng.choice(INTERESTING_INT) % (1 << (8 * n))
            b[i:i + n] = v.to_bytes(n, "little")
        elif kind == 7:     # a varint (protobuf lengths and numbers)
            v = rng.choice(INTERESTING_INT)
            out = bytearray()
            while True:
                out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
                v >>= 7
                if not v:
                    break
            b[i:i + rng.randrange(1, 4)] = out
        else:               # splice in a piece of another seed
            if others:
                o = rng.choice(others)
                if o:
                    j = rng.randrange(len(o))
                    b[i:i + rng.randrange(0, 32)] = o[j:j + rng.randrange(1, 64)]
        if not b:
            break
    return bytes(b)


# ====================================================================================================
# hostile pickles
# ====================================================================================================

P2, P4 = b"\x80\x02", b"\x80\x04"


def _uni(s):
    b = s.encode("utf-8", "surrogatepass")
    return b"X" + struct.pack("<I", len(b)) + b


def _bytes(b):
    return b"B" + struct.pack("<I", len(b)) + b


def _int(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if -2 ** 31 <= v < 2 ** 31:
        return b"J" + struct.pack("<i", v)
    raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
    return (b"\x8a" + bytes([len(raw)]) if len(raw) < 256 else b"\x8b" + struct.pack("<i", len(raw))) + raw


def _dtype(descr, order="<"):
    return (b"cnumpy\ndtype\n" + _uni(descr) + b"\x89\x88\x87R(K\x03" + _uni(order)
            + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb")


def _array(rng, shape, descr, data):
    mod = rng.choice((b"numpy.core.multiarray", b"numpy._core.multiarray"))
    return (b"c" + mod + b"\n_reconstruct\ncnumpy\nndarray\nK\x00\x85" + _bytes(b"b") + b"\x87R"
            + b"(K\x01(" + b"".join(_int(d) for d in shape) + b"t" + _dtype(descr) + b"\x89" + _bytes(data) + b"tb")


def _huge(rng):
    return rng.choice((2 ** 29, 2 ** 31 - 1, 2 ** 32, 2 ** 40, 2 ** 62, 2 ** 63 - 1, 2 ** 64, -1, -2 ** 31))


def _plain_value(rng, depth=0):
    """A random plain structure (what a real file may hold)."""
    import numpy as np
    r = rng.randrange(12 if depth < 4 else 7)
    if r == 0:
        return rng.randrange(-2 ** 40, 2 ** 40)
    if r == 1:
        return rng.random() * 1e6
    if r == 2:
        return "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(8)))
    if r == 3:
        return rng.choice((None, True, False))
    if r == 4:
        dt = rng.choice(("float32", "float64", "int64", "int32", "bool", "float16", "uint8", "complex64"))
        shape = tuple(rng.randrange(4) for _ in range(rng.randrange(4)))
        return (np.arange(int(np.prod(shape)), dtype=np.int64) % 2).astype(dt).reshape(shape)
    if r == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(6)))
    if r == 6:
        return np.float32(rng.random())
    if r == 7:
        return [_plain_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if r == 8:
        return tuple(_plain_value(rng, depth + 1) for _ in range(rng.randrange(4)))
    if r == 9:
        return {f"k{i}": _plain_value(rng, depth + 1) for i in range(rng.randrange(4))}
    if r == 10:
        return {rng.randrange(100), "s", (1, 2)}
    import collections
    return collections.OrderedDict((f"o{i}", _plain_value(rng, depth + 1)) for i in range(rng.randrange(3)))


def hostile_pickle(rng: random.Random, seeds) -> bytes:
    """One hostile pickle: a fault class the old loader had, with random sizes and placements."""
    r = rng.randrange(18)
    # sizes: mostly small (fast cases, many of them); now and then big enough to overflow a C stack
    big = rng.random() < 0.03
    n = rng.choice((300_000, 1_000_000)) if big else rng.choice((10, 100, 1000, 20_000))
    if r == 0:      # containers that contain themselves, through memo references
        shapes = [b"]q\x00h\x00a", b"}q\x00K\x01h\x00s", b"]q\x00h\x00\x85q\x01a", b"]q\x00(h\x00h\x00e",
                  b"}q\x00X\x01\x00\x00\x00w]q\x01h\x00as", b"]q\x00}q\x01K\x00h\x00sa"]
        body = rng.choice(shapes)
        return P2 + (b"}X\x01\x00\x00\x00a" + body + b"s" if rng.random() < 0.5 else body) + b"."
    if r == 1:      # deep nesting (lists, dicts, tuples; as a value or as a dict key)
        form = rng.randrange(4)
        if form == 0:
            return P2 + b"]" * n + b"a" * (n - 1) + b"."
        if form == 1:
            return P2 + b")" + b"\x85" * n + b"."
        if form == 2:
            return P2 + b"}" + b")" + b"\x85" * n + b"Ns."
        return P2 + (b"}K\x01" * n) + b"N" + b"s" * n + b"."
    if r == 2:      # a claimed length the file does not hold
        op = rng.choice((b"\x8e", b"\x96", b"\x8d", b"\x95"))
        return P4 + op + struct.pack("<Q", _huge(rng) % 2 ** 64) + b"x" * rng.randrange(20) + b"N."
    if r == 3:
        op = rng.choice((b"\x8b", b"T", b"X", b"B"))
        fmt = "<i" if op in (b"\x8b", b"T") else "<I"
        v = _huge(rng)
        v = max(min(v, 2 ** 31 - 1), -2 ** 31) if fmt == "<i" else v % 2 ** 32
        return P2 + op + struct.pack(fmt, v) + b"x" * rng.randrange(20) + b"."
    if r == 4:      # memo indices far away
        idx = rng.choice((255, 2 ** 16, 2 ** 31, 2 ** 32 - 1))
        return P2 + b"Nr" + struct.pack("<I", idx) + b"0j" + struct.pack("<I", rng.choice((idx, idx - 1, 0))) + b"."
    if r == 5:      # _reconstruct with a shape of its own (numpy would allocate it)
        return (P2 + b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n(" + _int(_huge(rng) % 2 ** 40)
                + b"t" + _dtype(rng.choice(("f8", "b1", "O8", "V16"))) + b"\x87R.")
    if r == 6:      # array state whose shape is not backed by its bytes
        shape = [rng.choice((0, 1, 3, _huge(rng))) for _ in range(rng.randrange(1, 4))]
        return P2 + _array(rng, shape, rng.choice(("f4", "f8", "i8", "b1", "U3")), b"\x00" * rng.randrange(32)) + b"."
    if r == 7:      # dtypes that are not numbers
        descr = rng.choice(("O8", "V8", "V2000000000", "M8", "m8", "U1000000000", "f16", "<f4,<i4", "(3,)f8", "c32"))
        body = _dtype(descr)
        if rng.random() < 0.5:
            body = _array(rng, [2], "f4", b"\x00" * 8).replace(_dtype("f4"), body)
        return P2 + body + b"."
    if r == 8:      # BUILD (attribute setting) on an allowed global
        target = rng.choice((b"c_codecs\nencode\n", b"c__builtin__\nbytearray\n", b"cnumpy\ndtype\n",
                             b"ccollections\nOrderedDict\n", b"cnumpy.core.multiarray\nscalar\n"))
        attr = rng.choice(("__defaults__", "__kwdefaults__", "__dict__", "x"))
        state = b"N}" + _uni(attr) + _uni("rot13") + b"\x85s\x86"
        return P2 + target + rng.choice((state, b"}" + _uni("__defaults__") + b")s")) + b"b."
    if r == 9:      # keys that all hash alike
        keys = b"".join(_int(k * (2 ** 61 - 1)) + b"N" for k in range(1, rng.choice((70, 500, 5000 if big else 66))))
        return P2 + b"}(" + keys + b"u."
    if r == 10:     # copies of one big list
        lst = b"]q\x00(" + b"N" * (100_000 if big else 1000) + b"e"
        return P2 + lst + b"(" + b"c__builtin__\nlist\nh\x00\x85R" * rng.choice((10, 1000, 20_000)) + b"l."
    if r == 11:     # allowed globals with hostile arguments
        call = rng.choice((b"c__builtin__\nbytearray\n" + _int(_huge(rng) % 2 ** 40) + b"\x85R",
                           b"c__builtin__\ncomplex\n" + _int(2 ** rng.choice((100, 2000, 20_000))) + b"\x85R",
                           b"c_codecs\nencode\n" + _uni("x" * 10) + _uni(rng.choice(("zlib", "hex", "utf-32")))
                           + b"\x86R",
                           b"c__builtin__\nset\n" + _bytes(b"abc") + b"\x85R",
                           b"cnumpy.core.multiarray\nscalar\n" + _dtype("f8") + _bytes(b"\x00" * rng.randrange(16))
                           + b"\x86R",
                           b"cnumpy.core.numeric\n_frombuffer\n(" + _bytes(b"\x00" * 8) + _dtype("f8")
                           + b"(" + _int(_huge(rng) % 2 ** 40) + b"t" + _uni("C") + b"tR",
                           b"cnumpy\nndarray\n(K\x05tR", b"c__builtin__\nslice\n]\x85R"))
        return P2 + call + b"."
    if r == 12:     # globals that must never resolve
        mod, name = rng.choice((("os", "system"), ("builtins", "eval"), ("builtins", "getattr"), ("numpy", "load"),
                                ("numpy.core.multiarray", "empty"), ("copyreg", "_reconstructor"),
                                ("numpy", "frombuffer")))
        return P2 + f"c{mod}\n{name}\n".encode() + _uni("x") + b"\x85R."
    if r == 13:     # opcode soup
        ops = (b"().0123FIJKLMNRSTUVXabcdeghijlopqrstu}]G"
               b"\x80\x81\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98BC")
        body = bytearray()
        for _ in range(rng.randrange(1, 200)):
            body.append(rng.choice(ops))
            body.extend(bytes(rng.randrange(256) for _ in range(rng.choice((0, 0, 1, 2, 4, 8)))))
        return bytes(body)
    if r == 14:     # a random plain structure, pickled for real (should load), then maybe mutated
        data = pickle.dumps(_plain_value(rng), protocol=rng.randrange(6))
        return mutate(data, rng) if rng.random() < 0.5 else data
    if r == 15:     # a seed with a hostile piece inserted before its STOP
        seed = rng.choice(seeds)
        piece = hostile_pickle(rng, seeds)
        piece = piece[2:-1] if piece[:1] == b"\x80" else piece
        return seed[:-1] + piece + b"0" + seed[-1:]
    if r == 16:     # empty containers and marks by the million (memory per opcode byte)
        return P2 + b"(" + rng.choice((b"}", b"]", b"(", b"\x8f", b")")) * (n if big else 10 * n) + b"l."
    # a shared structure whose paths grow exponentially
    body = b"]q\x00"
    for k in range(rng.randrange(10, 80)):
        body += b"(h" + bytes([k % 256]) + b"h" + bytes([k % 256]) + b"lq" + bytes([(k + 1) % 256])
    return P2 + body + b"."


# ====================================================================================================
# hostile .pdiparams and .pdmodel
# ====================================================================================================

def hostile_params(rng: random.Random, trio) -> bytes:
    """A .pdiparams stream for the trio's program, with one structural field made hostile."""
    from runtime.formats.pdmodel import parse_program, persistable_specs
    from runtime.formats.proto import TensorDesc
    program, _, _ = parse_program(trio["pdmodel"])
    specs = persistable_specs(program)
    out = bytearray()
    target = rng.randrange(max(len(specs), 1))
    for k, (name, code, dims) in enumerate(specs):
        shape = [d if d >= 0 else 2 for d in dims]
        version, lod, tversion, code_out, desc_len, data_len = 0, [], 0, code, None, None
        if k == target:
            r = rng.randrange(8)
            if r == 0:
                version = rng.choice((1, 2 ** 32 - 1))
            elif r == 1:
                lod = [_huge(rng) % 2 ** 64] if rng.random() < 0.5 else [8] * rng.choice((1, 1000))
            elif r == 2:
                tversion = rng.choice((1, 2 ** 31))
            elif r == 3:
                code_out = rng.choice((0, 4, 6, 7, 9, 19, 22, 26, 24, 38))
            elif r == 4:
                desc_len = rng.choice((-1, -2 ** 31, 2 ** 31 - 1, 0, 1))
            elif r == 5:
                shape = [rng.choice((0, 1, 2, -1, _huge(rng))) for _ in range(rng.choice((len(shape), 0, 40)))]
            elif r == 6:
                data_len = rng.choice((0, 1, 7))
            else:
                shape = [0] + [_huge(rng) % 2 ** 63 for _ in range(rng.randrange(1, 4))]
        desc = TensorDesc(data_type=code_out, dims=[max(min(d, 2 ** 63 - 1), -2 ** 63) for d in shape])
        raw = desc.SerializeToString()
        out += struct.pack("<I", version % 2 ** 32) + struct.pack("<Q", len(lod) % 2 ** 64)
        for n in lod:
            out += struct.pack("<Q", n % 2 ** 64) + (b"\x00" * n if n < 1 << 16 else b"")
        out += struct.pack("<I", tversion % 2 ** 32)
        out += struct.pack("<i", len(raw) if desc_len is None else desc_len) + raw
        numel = 1
        for d in shape:
            numel *= max(d, 0)
        itemsize = {0: 1, 1: 2, 2: 4, 3: 8, 4: 2, 5: 4, 6: 8, 20: 1, 21: 1}.get(code, 4)
        n = numel * itemsize if data_len is None else data_len
        out += bytes(min(n, 1 << 16))
    if rng.random() < 0.2:
        out += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30)))
    return bytes(out)


def hostile_model(rng: random.Random, trio) -> bytes:
    """The trio's ProgramDesc with fields set to hostile values at the message level."""
    from runtime.formats.proto import ProgramDesc
    pd = ProgramDesc()
    pd.ParseFromString(trio["pdmodel"])
    for _ in range(rng.randrange(1, 4)):
        block = rng.choice(pd.blocks)
        r = rng.randrange(10)
        if r == 0 and block.vars:          # extreme dims
            v = rng.choice(block.vars)
            if v.type.HasField("dense_tensor"):
                dims = v.type.dense_tensor.tensor.dims
                del dims[:]
                extremes = (2 ** 63 - 1, -2 ** 63, 0, -1, 2 ** 31, -7)
                dims.extend(rng.choice(extremes) for _ in range(rng.choice((1, 3, 40))))
        elif r == 1 and block.ops:         # extreme attributes
            a = rng.choice(block.ops).attrs.add()
            a.name = rng.choice(("axis", "shape", "value", "dtype", "sub_block", "op_callstack", "col", "x"))
            a.type = rng.randrange(18)
            a.i = rng.choice((2 ** 31 - 1, -2 ** 31, 0))
            a.l = rng.choice((2 ** 63 - 1, -2 ** 63))
            a.ints.extend([rng.choice((2 ** 31 - 1, -2 ** 31, -1))] * rng.choice((1, 2000)))
            a.f = float(rng.choice(("inf", "nan", "1e38")))
            a.s = "\n\x00'\"" * rng.choice((1, 1000))
            a.block_idx = rng.choice((-1, 0, 2 ** 31 - 1, len(pd.blocks)))
        elif r == 2:                       # block structure
            b = rng.choice(pd.blocks)
            b.parent_idx = rng.choice((-2, b.idx, 2 ** 31 - 1, len(pd.blocks)))
            if rng.random() < 0.3:
                b.idx = rng.choice((b.idx + 1, -1))
        elif r == 3 and block.ops:         # many copies of an op
            op = rng.choice(block.ops)
            for _ in range(rng.choice((10, 500))):
                block.ops.add().CopyFrom(op)
        elif r == 4 and block.ops:         # an op of another type
            rng.choice(block.ops).type = rng.choice(("while", "conditional_block", "feed", "fetch", "matmul_v2",
                                                     "fill_constant", "reshape2", "no_such_op", "assign_value"))
        elif r == 5:                       # many empty blocks
            for _ in range(rng.choice((10, 5000))):
                nb = pd.blocks.add()
                nb.idx, nb.parent_idx = len(pd.blocks) - 1, rng.choice((0, len(pd.blocks) - 2))
        elif r == 6 and block.ops:         # slots naming variables that are not there, or a lot of them
            op = rng.choice(block.ops)
            slot = op.inputs.add() if rng.random() < 0.5 else op.outputs.add()
            slot.parameter = rng.choice(("X", "Y", "Out", "Input", "Condition", "zzz"))
            slot.arguments.extend([rng.choice(("x", "feed", "fetch", "", "\x00"))] * rng.choice((1, 5000)))
        elif r == 7 and block.vars:        # variable kinds and data types
            v = rng.choice(block.vars)
            v.type.type = rng.choice((7, 8, 9, 10, 11, 13, 15, 17, 18, 25, 31, 12))
            if v.type.HasField("dense_tensor"):
                v.type.dense_tensor.tensor.data_type = rng.choice((0, 6, 19, 22, 25, 31))
        elif r == 8 and block.vars:        # duplicated / renamed variables
            v = rng.choice(block.vars)
            block.vars.add().CopyFrom(v)
            if rng.random() < 0.5:
                block.vars[-1].name = rng.choice(("feed", "fetch", "", "a\nb"))
        else:                              # a scalar attribute of an unexpected kind
            if block.ops:
                a = rng.choice(block.ops).attrs.add()
                a.name = "values"
                a.type = 17
                s = a.scalars.add()
                s.type = rng.choice((1, 2, 3, 4))
                s.i = 2 ** 63 - 1
    try:
        return pd.SerializeToString()
    except Exception:   # a required field left unset: write what can be written
        return pd.SerializePartialToString()


# ====================================================================================================
# one case
# ====================================================================================================

class Corpus:
    """Seed files for every kind, loaded once per process."""

    def __init__(self):
        self.trios = model_trios()
        self.pickles = {k: pickle_seeds(k) for k in ("pdparams", "pdopt")}
        dirs = sorted(PIR_FIXTURES.iterdir()) if PIR_FIXTURES.exists() else []
        self.pir = [(d.name, {"json": (d / "model.json").read_bytes(),
                              "pdiparams": (d / "model.pdiparams").read_bytes()})
                    for d in dirs if (d / "model.json").exists() and (d / "model.pdiparams").exists()]


def hostile_json(rng: random.Random, data: bytes) -> bytes:
    """The PIR program with a hostile value in place of one of its numbers, strings or lists."""
    spots = [i for i, c in enumerate(data) if c in b"[:,"]
    i = rng.choice(spots) + 1 if spots else 0
    n = rng.choice((10, 1000, 100_000))
    piece = rng.choice((b"[" * n + b"]" * n, b'{"a":' * n + b"1" + b"}" * n, b"1" * rng.choice((400, 5000)),
                        b"1e999", b"-1e999", b"NaN", b"9223372036854775808", b"-9223372036854775809",
                        b'"' + b"\\u0000" * n + b'"', b"[" + b"0," * n + b"0]", b"null", b"true", b'"\\ud800"'))
    return data[:i] + piece + data[i:]


def make_case(corpus, kind, seed, index):
    """``(files, target)``: the file contents (name -> bytes) of case ``index`` and the name fuzzed."""
    rng = random.Random(f"{seed}:{kind}:{index}")
    hostile = rng.random() < 0.4
    if kind in ("pdparams", "pdopt"):
        seeds = corpus.pickles[kind]
        data = hostile_pickle(rng, seeds) if hostile else mutate(rng.choice(seeds), rng, seeds)
        return {kind: data}, kind
    if kind == "json":
        _, pir = corpus.pir[rng.randrange(len(corpus.pir))]
        files = dict(pir)
        files["json"] = hostile_json(rng, pir["json"]) if hostile else mutate(pir["json"], rng)
        return files, kind
    name, trio = corpus.trios[rng.randrange(len(corpus.trios))]
    files = dict(trio)
    if kind == "pdiparams.info" and files[kind] is None:
        files[kind] = pickle.dumps({}, protocol=2)
    others = [t[kind] for _, t in corpus.trios if t[kind]]
    if not hostile:
        files[kind] = mutate(files[kind], rng, others)
    elif kind == "pdiparams.info":
        files[kind] = hostile_pickle(rng, others)
    elif kind == "pdiparams":
        files[kind] = hostile_params(rng, trio)
    else:
        files[kind] = hostile_model(rng, trio)
    return files, kind


def _named(message, name):
    return message.startswith(name) or f"{name}: " in message


def run_case(files, kind, workdir):
    """The outcome of loading ``files``: ``(outcome, detail)``."""
    from runtime.formats.errors import ModelFormatError
    try:
        if kind in ("pdparams", "pdopt"):
            from runtime.formats.serialization import load
            path = os.path.join(workdir, f"case.{kind}")
            with open(path, "wb") as f:
                f.write(files[kind])
            name = path
            load(path)
        elif kind == "json":
            from runtime.formats.model_io import load_model_from_bytes
            name = "model.json"
            m = load_model_from_bytes(files["json"], files["pdiparams"], None, model_path="model.json",
                                      params_path="model.pdiparams")
            m.program.verify()
        else:
            from runtime.formats.model_io import load_model_from_bytes
            name = f"model.{kind}"
            m = load_model_from_bytes(files["pdmodel"], files["pdiparams"], files["pdiparams.info"],
                                      model_path="model.pdmodel", params_path="model.pdiparams",
                                      info_path="model.pdiparams.info")
            m.program.verify()
    except ModelFormatError as e:
        msg = str(e)
        if "MemoryError" in msg:
            return "memory", msg[:300]
        cause = e.__cause__
        if cause is not None and not isinstance(cause, ModelFormatError):
            return "wrapped", f"{type(cause).__name__}: {msg[:300]}"
        if not any(_named(msg, n) for n in (name, "model.pdmodel", "model.pdiparams", "model.pdiparams.info",
                                            "model.json")):
            return "unnamed", msg[:300]
        return "error", None
    except MemoryError as e:
        return "memory", f"MemoryError: {e}"
    except BaseException as e:   # noqa: B902 - every other type is a fault, even KeyboardInterrupt-like ones
        return "escape", f"{type(e).__name__}: {str(e)[:300]}"
    return "ok", None


# ====================================================================================================
# worker process
# ====================================================================================================

def _status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM", "VmSize")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) * 1024
    return out


def _reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _injected(kind, i):
    """A fault the harness's own test asks for (DY2ST_FUZZ_INJECT="kind:case:crash|hang|escape,...")."""
    for item in filter(None, os.environ.get("DY2ST_FUZZ_INJECT", "").split(",")):
        k, case, fault = item.rsplit(":", 2)
        if k == kind and int(case) == i:
            if fault == "crash":
                os.abort()
            if fault == "hang":
                time.sleep(3600)
            return "escape", "KeyError: injected"
    return None


def worker(kind, seed, start, end, extra_as):
    """Run cases [start, end) of ``kind``; one JSON line per case on stdout."""
    import runtime  # noqa: F401  (import everything before the memory limit)
    from runtime.formats import model_io, serialization  # noqa: F401
    corpus = Corpus()
    base = _status()["VmSize"]
    resource.setrlimit(resource.RLIMIT_AS, (base + extra_as, base + extra_as))
    workdir = tempfile.mkdtemp(prefix="dy2st-fuzz-")
    can_reset = _reset_peak()
    out = sys.stdout
    for i in range(start, end):
        files, target = make_case(corpus, kind, seed, i)
        size = sum(len(v) for v in files.values() if v)
        before = _status()["VmRSS"]
        if can_reset:
            _reset_peak()
        t0 = time.perf_counter()
        outcome, detail = _injected(kind, i) or run_case(files, target, workdir)
        dt = time.perf_counter() - t0
        growth = max(0, _status()["VmHWM"] - before) if can_reset else 0
        if outcome in ("ok", "error") and growth > MEMORY_SLACK + MEMORY_PER_BYTE * size:
            outcome, detail = "memory", f"peak RSS grew by {growth >> 20} MiB for {size} bytes"
        out.write(json.dumps({"i": i, "o": outcome, "t": round(dt, 4), "m": growth, "n": size,
                              "d": detail}) + "\n")
        out.flush()


# ====================================================================================================
# the parent: batches, restarts, figures
# ====================================================================================================

class _Run:
    def __init__(self, kind, start, end):
        self.kind, self.next, self.end = kind, start, end
        self.proc = None
        self.buf = b""
        self.last = None
        self.err = None


def run(kinds=KINDS, cases=100, seed=0, workers=1, batch=1000, timeout=20.0, extra_as=2 << 30, save_dir=None,
        progress=None, deadline=None):
    """Fuzz ``cases`` cases of each kind; returns ``{kind: figures}`` (see the module docstring).
    ``deadline``: stop after this many seconds, keeping the figures of the cases done so far."""
    stats = {k: {"cases": 0, "ok": 0, "error": 0, **{f: 0 for f in FAULTS}, "examples": [], "max_seconds": 0.0,
                 "slowest_case": None, "max_rss_growth": 0, "max_rss_growth_ratio_1mb": 0.0, "seconds": 0.0,
                 "bytes": 0}
             for k in kinds}
    # batches of all kinds interleaved, so a run stopped by its deadline has covered every kind alike
    todo = [(k, s, min(s + batch, cases)) for s in range(0, cases, batch) for k in kinds]
    running = []
    started = {k: None for k in kinds}
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))

    def spawn(r):
        if r.err is not None:
            r.err.close()
        r.err = tempfile.TemporaryFile()   # the worker's stderr: the traceback of a crash
        r.proc = subprocess.Popen([sys.executable, "-m", "tests.runtime.formats.fuzz_files", "--worker", r.kind,
                                   str(seed), str(r.next), str(r.end), str(extra_as)],
                                  stdout=subprocess.PIPE, stderr=r.err, cwd=str(ROOT), env=env)
        r.buf, r.last = b"", time.monotonic() + 30.0   # imports take a while before the first case

    def record_fault(r, outcome, i, detail):
        st = stats[r.kind]
        st["cases"] += 1
        st[outcome] += 1
        if len(st["examples"]) < 20:
            st["examples"].append({"case": i, "outcome": outcome, "detail": detail})
        if save_dir:
            corpus = _corpus()
            files, target = make_case(corpus, r.kind, seed, i)
            d = pathlib.Path(save_dir) / f"{r.kind}-{seed}-{i}-{outcome}"
            d.mkdir(parents=True, exist_ok=True)
            for name, data in files.items():
                if data is not None:
                    (d / f"model.{name}" if name not in ("pdparams", "pdopt") else d / f"case.{name}").write_bytes(data)

    def finish(r):
        try:
            r.proc.kill()
        except OSError:
            pass
        r.proc.wait()

    t_start = time.monotonic()
    while todo or running:
        while todo and len(running) < workers:
            k, s, e = todo.pop(0)
            if started[k] is None:
                started[k] = time.monotonic()
            r = _Run(k, s, e)
            spawn(r)
            running.append(r)
        fds = {r.proc.stdout.fileno(): r for r in running}
        ready, _, _ = select.select(list(fds), [], [], 1.0)
        now = time.monotonic()
        for fd in ready:
            r = fds[fd]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                r.buf += chunk
                *lines, r.buf = r.buf.split(b"\n")
                for line in lines:
                    rec = json.loads(line)
                    st = stats[r.kind]
                    o = rec["o"]
                    if o in FAULTS:
                        r.next = rec["i"] + 1
                        record_fault(r, o, rec["i"], rec["d"])
                    else:
                        st["cases"] += 1
                        st[o] += 1
                    if rec["t"] > st["max_seconds"]:
                        st["max_seconds"], st["slowest_case"] = rec["t"], rec["i"]
                    if rec["m"] > st["max_rss_growth"]:
                        st["max_rss_growth"], st["largest_case"] = rec["m"], rec["i"]
                    st["bytes"] += rec["n"]
                    if rec["n"] >= 1 << 20:
                        st["max_rss_growth_ratio_1mb"] = max(st["max_rss_growth_ratio_1mb"], rec["m"] / rec["n"])
                    r.next = rec["i"] + 1
                    r.last = now
                continue
            # EOF: the worker exited
            code = r.proc.wait()
            if r.next < r.end:     # it died in the middle of case r.next
                r.err.seek(0)
                tail = r.err.read().decode(errors="replace").strip().splitlines()[-3:]
                record_fault(r, "crash", r.next, f"worker exit code {code}: {' | '.join(tail)}")
                r.next += 1
                if r.next < r.end:
                    spawn(r)
                    continue
            running.remove(r)
            r.err.close()
        for r in list(running):
            if r.proc.poll() is None and now - r.last > timeout:
                finish(r)
                record_fault(r, "hang", r.next, f"no result within {timeout} s")
                r.next += 1
                if r.next < r.end:
                    spawn(r)
                else:
                    running.remove(r)
        if progress:
            progress(stats, time.monotonic() - t_start)
        if deadline is not None and time.monotonic() - t_start > deadline:
            for r in running:
                finish(r)
            running, todo = [], []
    for k in kinds:
        stats[k]["seconds"] = round(time.monotonic() - started[k], 1) if started[k] is not None else 0.0
    return stats


_CORPUS = None


def _corpus():
    global _CORPUS
    if _CORPUS is None:
        _CORPUS = Corpus()
    return _CORPUS


def summary(stats):
    head = (f"{'kind':<16}{'cases':>9}{'ok':>8}{'error':>9}" + "".join(f"{f:>8}" for f in FAULTS)
            + f"{'max s':>8}{'peak MiB':>10}")
    lines = [head]
    for k, st in stats.items():
        lines.append(f"{k:<16}{st['cases']:>9}{st['ok']:>8}{st['error']:>9}" + "".join(f"{st[f]:>8}" for f in FAULTS)
                     + f"{st['max_seconds']:>8.2f}{st['max_rss_growth'] / 2 ** 20:>10.1f}")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        kind, seed, start, end, extra_as = argv[1], int(argv[2]), int(argv[3]), int(argv[4]), int(argv[5])
        worker(kind, seed, start, end, extra_as)
        return 0
    p = argparse.ArgumentParser(prog="python -m tests.runtime.formats.fuzz_files", description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=1000, help="cases per kind (default 1000)")
    p.add_argument("--kind", default="all", help=f"one of {', '.join(KINDS + EXTRA_KINDS)}, or all (default: the "
                   "first five)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="worker processes at a time (default 1)")
    p.add_argument("--batch", type=int, default=2000, help="cases per worker process (default 2000)")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds without a result that make a hang")
    p.add_argument("--memory-gib", type=float, default=2.0, help="address space a worker may add (RLIMIT_AS)")
    p.add_argument("--save-dir", help="write the files of every faulty case here")
    p.add_argument("--json", help="also write the figures as JSON to this file (updated every minute)")
    p.add_argument("--deadline", type=float, help="stop after this many seconds and report the cases done")
    args = p.parse_args(argv)
    kinds = KINDS if args.kind == "all" else tuple(args.kind.split(","))
    for k in kinds:
        if k not in KINDS + EXTRA_KINDS:
            p.error(f"unknown kind {k!r}; choose from {', '.join(KINDS + EXTRA_KINDS)} or all")
    last = [0.0]

    def progress(stats, elapsed):
        if elapsed - last[0] >= 60:
            last[0] = elapsed
            done = sum(s["cases"] for s in stats.values())
            faults = sum(s[f] for s in stats.values() for f in FAULTS)
            print(f"[{elapsed:7.0f}s] {done} cases, {faults} faults", file=sys.stderr, flush=True)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(stats, f, indent=1)

    stats = run(kinds, args.cases, args.seed, args.workers, args.batch, args.timeout, int(args.memory_gib * 2 ** 30),
                args.save_dir, progress, args.deadline)
    print(summary(stats))
    for k, st in stats.items():
        for ex in st["examples"]:
            print(f"  {k} case {ex['case']}: {ex['outcome']}: {ex['detail']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(stats, f, indent=1)
    return 1 if any(st[f] for st in stats.values() for f in FAULTS) else 0


if __name__ == "__main__":
    sys.exit(main())
