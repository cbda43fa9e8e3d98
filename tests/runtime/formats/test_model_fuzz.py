"""Fuzzing the readers with the real Paddle fixtures: flipped, overwritten, inserted and deleted
bytes and truncations of every file. Loading either succeeds (giving a program that verifies)
or raises ModelFormatError, never another exception. ``load_model``'s last-resort conversion
of unexpected exceptions is switched off here, so every error must come from a real check.

DY2ST_FUZZ_CASES=<n> sets the number of cases per fixture file (default 40)."""
import os
import pathlib

import numpy as np
import pytest

from runtime.formats import model_io
from runtime.formats.model_io import ModelFormatError, load_model_from_bytes

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1"
N = int(os.environ.get("DY2ST_FUZZ_CASES", "40"))
MODELS = sorted(p.name for p in FIXTURES.iterdir() if (p / "model.pdmodel").exists())
FILES = [(m, kind) for m in MODELS for kind in ("pdmodel", "pdiparams", "pdiparams.info")
         if (FIXTURES / m / f"model.{kind}").exists()]


@pytest.fixture(autouse=True)
def strict(monkeypatch):
    monkeypatch.setattr(model_io, "_CATCH_ALL", False)


def _files(model):
    d = FIXTURES / model
    read = lambda k: (d / f"model.{k}").read_bytes() if (d / f"model.{k}").exists() else None  # noqa: E731
    return {"pdmodel": read("pdmodel"), "pdiparams": read("pdiparams"), "pdiparams.info": read("pdiparams.info")}


def mutate(data: bytes, rng) -> bytes:
    b = bytearray(data)
    kind = rng.integers(6) if b else 5
    if kind == 0:   # flip bits in a few bytes
        for _ in range(rng.integers(1, 4)):
            i = rng.integers(len(b))
            b[i] ^= 1 << rng.integers(8)
    elif kind == 1:   # overwrite a byte with an interesting value
        b[rng.integers(len(b))] = int(rng.choice([0, 1, 0x7F, 0x80, 0xFF, 0x08, 0x0A, 0x12]))
    elif kind == 2:   # truncate
        b = b[:rng.integers(len(b))]
    elif kind == 3:   # delete a short run
        i = rng.integers(len(b))
        del b[i:i + rng.integers(1, 9)]
    elif kind == 4:   # duplicate a short run
        i = rng.integers(len(b))
        b[i:i] = b[i:i + rng.integers(1, 9)]
    else:   # insert random bytes
        i = rng.integers(len(b) + 1)
        b[i:i] = rng.integers(0, 256, rng.integers(1, 9), dtype=np.uint8).tobytes()
    return bytes(b)


def _load(files):
    return load_model_from_bytes(files["pdmodel"], files["pdiparams"], files["pdiparams.info"],
                                 model_path="model.pdmodel", params_path="model.pdiparams",
                                 info_path="model.pdiparams.info")


@pytest.mark.parametrize("model", MODELS)
def test_unmutated_fixtures_load(model):
    m = _load(_files(model))
    m.program.verify()


@pytest.mark.parametrize("model,kind", FILES)
def test_mutated_files_load_or_raise_model_format_error(model, kind):
    rng = np.random.default_rng(sum(map(ord, model + kind)))   # a fixed seed per file
    base = _files(model)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(N):
        files = dict(base)
        files[kind] = mutate(base[kind], rng)
        try:
            m = _load(files)
        except ModelFormatError as e:
            assert str(e).startswith("model."), f"the error does not name the file: {e}"
            outcomes["error"] += 1
            continue
        m.program.verify()
        outcomes["ok"] += 1
    assert sum(outcomes.values()) == N


def test_every_truncation_of_the_smallest_model_raises():
    base = _files("linear_relu")
    for kind in ("pdmodel", "pdiparams"):
        data = base[kind]
        for n in range(len(data)):
            files = dict(base)
            files[kind] = data[:n]
            try:
                _load(files)
            except ModelFormatError:
                continue
            # a protobuf cut at a field boundary can still parse; the params must then not match
            assert kind == "pdmodel", f"{kind} truncated to {n} bytes loaded"
