"""A fixed-seed slice of the corrupt/hostile-file fuzzer (`fuzz_files`) over all five file kinds.

Every case runs in a worker process under a memory limit; the harness restarts a worker that
crashed or hung and records the case. Goal: no fault of any kind (escape of a foreign exception
type, an error without the file's name, a foreign exception caught only by the last-resort
wrapper, a memory blow-up, a hang, a crash). The long run is
``python -m tests.runtime.formats.fuzz_files --cases 100000 --kind all``.

DY2ST_FUZZ_FILE_CASES=<n> sets the cases per kind (default 40)."""
import os

import pytest

from . import fuzz_files

N = int(os.environ.get("DY2ST_FUZZ_FILE_CASES", "40"))


@pytest.fixture(scope="module")
def figures():
    return fuzz_files.run(fuzz_files.KINDS, cases=N, seed=12, workers=2, batch=N, timeout=60.0)


@pytest.mark.parametrize("kind", fuzz_files.KINDS)
def test_no_faults(figures, kind):
    st = figures[kind]
    assert st["cases"] == N
    faults = {f: st[f] for f in fuzz_files.FAULTS if st[f]}
    assert not faults, (faults, st["examples"])
    assert st["error"] > 0      # the cases reach the loaders' checks


def test_unmutated_seeds_load():
    corpus = fuzz_files.Corpus()
    for kind in ("pdparams", "pdopt"):
        for data in corpus.pickles[kind]:
            assert fuzz_files.run_case({kind: data}, kind, _tmp())[0] == "ok"
    for name, trio in corpus.trios:
        assert fuzz_files.run_case(trio, "pdmodel", _tmp()) == ("ok", None), name


def _tmp():
    import tempfile
    return tempfile.mkdtemp(prefix="dy2st-fuzz-test-")


def test_cases_are_reproducible_from_their_number():
    corpus = fuzz_files.Corpus()
    for kind in fuzz_files.KINDS:
        assert fuzz_files.make_case(corpus, kind, 5, 17) == fuzz_files.make_case(corpus, kind, 5, 17)
        assert fuzz_files.make_case(corpus, kind, 5, 17) != fuzz_files.make_case(corpus, kind, 5, 18)


def test_the_harness_records_crashes_hangs_and_escapes(monkeypatch):
    monkeypatch.setenv("DY2ST_FUZZ_INJECT", "pdopt:1:crash,pdopt:3:hang,pdopt:4:escape")
    st = fuzz_files.run(("pdopt",), cases=6, seed=0, workers=1, batch=6, timeout=3.0)["pdopt"]
    assert st["cases"] == 6
    assert (st["crash"], st["hang"], st["escape"]) == (1, 1, 1)
    assert {(e["case"], e["outcome"]) for e in st["examples"]} == {(1, "crash"), (3, "hang"), (4, "escape")}
