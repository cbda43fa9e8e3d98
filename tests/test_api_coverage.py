"""How much of real Paddle 3.3.1's public API this package has, measured, and a guard that keeps it.

Paddle's public names are read from the real package in a subprocess: each namespace's ``__all__``
(``paddle``, ``paddle.nn``, ... see ``NAMESPACES``; for ``paddle.hapi``, whose ``__all__`` is empty, the
non-module names it imports: Model, summary, flops) and the public attributes of ``paddle.Tensor``.
A name counts as present here when the same module path imports from ``dy2st`` and ``getattr`` on it
works (``dy2st.nn.functional`` for ``paddle.nn.functional``, ``dy2st.Tensor`` for Tensor methods).

* ``test_covered_names_stay`` (no Paddle needed) fails when a name listed in
  ``tests/api_coverage_covered.txt`` is no longer present: coverage only grows.
* ``test_coverage_table`` prints the per-namespace table (run pytest with ``-s``) and checks that the
  covered list names only Paddle names (a stale list after a Paddle upgrade: run ``--update``).

``python -m tests.test_api_coverage --update`` rewrites the covered list from what is present now;
``python -m tests.test_api_coverage --table`` prints the markdown table.
"""
from __future__ import annotations

import importlib
import json
import pathlib
import sys
import tempfile
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent
COVERED = ROOT / "api_coverage_covered.txt"

NAMESPACES = ("paddle", "paddle.nn", "paddle.nn.functional", "paddle.linalg", "paddle.fft", "paddle.vision.models",
              "paddle.vision.transforms", "paddle.vision.datasets", "paddle.hapi", "paddle.callbacks",
              "paddle.metric", "paddle.inference", "paddle.static", "paddle.io", "paddle.optimizer", "paddle.utils",
              "paddle.jit", "paddle.autograd", "paddle.amp", "paddle.signal", "paddle.text", "paddle.vision.ops",
              # measured since issue 16's second session: the module paths real scripts reach beyond the core
              "paddle.tensor", "paddle.static.nn", "paddle.nn.initializer", "paddle.nn.utils", "paddle.optimizer.lr",
              "paddle.regularizer", "paddle.distribution", "paddle.sparse", "paddle.sparse.nn", "paddle.geometric",
              "paddle.device", "paddle.device.cuda", "paddle.distributed", "paddle.audio", "paddle.sysconfig",
              "paddle.incubate", "paddle.incubate.autograd", "paddle.incubate.optimizer", "paddle.incubate.nn",
              "paddle.incubate.nn.functional")
TENSOR = "paddle.Tensor"       # the methods and properties of paddle.Tensor

PADDLE_NAMES_SCRIPT = textwrap.dedent("""
    import importlib, json, types
    names = {}
    for ns in NAMESPACES:
        mod = importlib.import_module(ns)
        public = getattr(mod, "__all__", None)
        if not public:      # paddle.hapi: __all__ = [], its names are the (non-module) ones it imports
            public = [n for n in dir(mod) if not n.startswith("_")
                      and not isinstance(getattr(mod, n), types.ModuleType)]
        names[ns] = sorted(set(public))
    names["paddle.Tensor"] = sorted(n for n in dir(paddle.Tensor) if not n.startswith("_"))
    json.dump(names, open("paddle_names.json", "w"))
""")

_paddle_names = {}


def paddle_names():
    """``{namespace: [public names]}`` of real Paddle (read once per process; skips without Paddle)."""
    if not _paddle_names:
        from tests.interop.paddle_runner import run_paddle
        with tempfile.TemporaryDirectory() as work:
            code = f"NAMESPACES = {list(NAMESPACES)!r}\n" + PADDLE_NAMES_SCRIPT
            proc = run_paddle(code, work)
            if proc.returncode != 0:
                raise AssertionError(f"reading Paddle's names failed:\n{proc.stderr[-3000:]}")
            _paddle_names.update(json.loads((pathlib.Path(work) / "paddle_names.json").read_text()))
    return _paddle_names


def our_object(namespace):
    """Our module (or class, for ``paddle.Tensor``) at Paddle's path ``namespace``; None when it does not import."""
    import dy2st
    if namespace == TENSOR:
        return dy2st.Tensor
    path = "dy2st" + namespace[len("paddle"):]
    try:
        return importlib.import_module(path)
    except ImportError:
        return None


def has(obj, name):
    if obj is None:
        return False
    try:
        getattr(obj, name)
    except Exception:       # AttributeError, or a lazy attribute that fails: not present
        return False
    return True


def measure(names=None):
    """``{namespace: (present names, missing names)}`` against Paddle's lists."""
    names = names or paddle_names()
    out = {}
    for ns in (*NAMESPACES, TENSOR):
        obj = our_object(ns)
        present = [n for n in names[ns] if has(obj, n)]
        missing = [n for n in names[ns] if not has(obj, n)]
        out[ns] = (present, missing)
    return out


def table(measured):
    """The markdown table: namespace | Paddle's names | present | missing | coverage."""
    lines = ["| namespace | Paddle names | present | missing | coverage |", "|---|---:|---:|---:|---:|"]
    tp = tm = 0
    for ns, (present, missing) in measured.items():
        total = len(present) + len(missing)
        tp, tm = tp + len(present), tm + len(missing)
        pct = 100.0 * len(present) / total if total else 100.0
        label = f"{ns} (methods)" if ns == TENSOR else ns
        lines.append(f"| {label} | {total} | {len(present)} | {len(missing)} | {pct:.1f} % |")
    lines.append(f"| **total** | {tp + tm} | {tp} | {tm} | {100.0 * tp / max(tp + tm, 1):.1f} % |")
    return "\n".join(lines)


def read_covered():
    """``[(namespace, name)]`` from the checked-in list (``namespace name`` per line, ``#`` comments)."""
    out = []
    for line in COVERED.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            ns, name = line.split()
            out.append((ns, name))
    return out


def write_covered(measured):
    lines = ["# Paddle 3.3.1 public names present in dy2st (namespace name per line).",
             "# tests/test_api_coverage.py fails when one of them disappears.",
             "# Regenerate with: python -m tests.test_api_coverage --update"]
    for ns, (present, _) in measured.items():
        lines.extend(f"{ns} {n}" for n in present)
    COVERED.write_text("\n".join(lines) + "\n")


def test_covered_names_stay():
    covered = read_covered()
    assert covered, f"{COVERED} lists no names"
    objects = {}
    gone = []
    for ns, name in covered:
        if ns not in objects:
            objects[ns] = our_object(ns)
        if not has(objects[ns], name):
            gone.append(f"{ns}.{name}")
    assert not gone, (f"{len(gone)} public name(s) that dy2st had are gone (listed in {COVERED.name}): "
                      + ", ".join(gone[:50]))


def test_coverage_table():
    measured = measure()
    print("\n" + table(measured))
    paddle_has = {(ns, n) for ns, ns_names in paddle_names().items() for n in ns_names}
    stale = [f"{ns}.{n}" for ns, n in read_covered() if (ns, n) not in paddle_has]
    assert not stale, f"{COVERED.name} lists names real Paddle does not have: {stale[:20]}"


def main(argv):
    if not argv or argv[0] not in ("--update", "--table"):
        print("usage: python -m tests.test_api_coverage --update | --table", file=sys.stderr)
        return 2
    try:
        measured = measure()
    except BaseException as e:       # pytest's skip (no real Paddle) is a BaseException
        if type(e).__name__ in ("Skipped", "OutcomeException"):
            print(f"cannot read Paddle's names: {e}", file=sys.stderr)
            return 1
        raise
    if argv[0] == "--update":
        write_covered(measured)
        print(f"wrote {COVERED} ({sum(len(p) for p, _ in measured.values())} names)")
    print(table(measured))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
