"""A long differential fuzzing run (not collected by pytest).

    python3 tests/dy2st/fuzz/run_long.py [-n 5000] [--seed 12345] [--batch 250] [--no-minimize]

Generates N random programs (tests/dy2st/fuzz/generator.py), runs each eagerly and converted on
several inputs (outputs, gradients, and the interpreter back end), and prints a summary: how many
programs, which constructs they used, how many failed and how, and for each distinct failure the
minimal failing program (tests/dy2st/fuzz/minimize.py).
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..")))

import numpy as np  # noqa: E402

from tests.dy2st.fuzz import generator, harness, minimize  # noqa: E402

CONSTRUCTS = {"if": " if ", "elif": "elif ", "else": "else:", "while": "while ", "for range(int)": "in range(n",
              "for range(tensor)": "in range(m", "break": "break", "continue": "continue",
              "return in block": "        return ", "and": " and ", "or": " or ", "not": "not ",
              "ternary": " else ", "tuple return": "return (", "list append": "lst.append(", "list pop": "lst.pop(",
              "list insert": "lst.insert(", "list extend": "lst.extend(", "list item assignment": "lst[",
              "enumerate": "in enumerate(", "zip": "in zip(", "int becoming float": "acc = acc + ",
              "name bound in a loop on some paths": "        p"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=5000, help="number of programs")
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--batch", type=int, default=250, help="programs per imported module")
    ap.add_argument("--no-minimize", action="store_true")
    ap.add_argument("--no-interpreter", action="store_true")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    failures, counts = [], collections.Counter()
    done = 0
    rng = np.random.default_rng(args.seed)
    for b in range(0, args.n, args.batch):
        k = min(args.batch, args.n - b)
        progs = generator.generate_batch(args.seed * 1000003 + b, k, prefix=f"f{b}_")
        fns = harness.load(progs)
        for p in progs:
            for name, pat in CONSTRUCTS.items():
                if pat in p.source:
                    counts[name] += 1
            failures += harness.check(p, fns[p.name], rng, interpreter=not args.no_interpreter, timeout=60)
            done += 1
        bad = len({f.program.name for f in failures})
        print(f"  {done}/{args.n} programs, {bad} failing, {time.perf_counter() - t0:.0f} s", flush=True)
    elapsed = time.perf_counter() - t0

    print(f"\n== {done} programs in {elapsed:.1f} s (seed {args.seed})")
    print("programs using each construct: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"runs (program x input): {harness.stats['runs']}, of which {harness.stats['unbound']} read a name the "
          "run did not bind (eager UnboundLocalError; the converted run failed as it should)")
    known = collections.Counter(k for _, k in harness.known)
    if known:
        print("checks skipped for known issues: " + ", ".join(f"{k} x{v}" for k, v in known.items()))
    failing = {f.program.name for f in failures}
    print(f"failing programs: {len(failing)}")
    kinds = collections.Counter(f"{f.kind}: {f.message.splitlines()[0][:160]}" for f in failures)
    for k, v in kinds.most_common():
        print(f"  {v} x {k}")
    seen = set()
    for f in failures:
        key = (f.kind, f.message.splitlines()[0][:60])
        if key in seen:
            continue
        seen.add(key)
        print(f"\n-- {f.kind} ({f.program.name}, x shape {f.program.shape} {f.program.dtype}, "
              f"m shape {f.program.m_shape}), input {f.inputs}")
        if not args.no_minimize and f.inputs:
            small = minimize.minimize(f)
            print("minimal failing program:")
            print(small.source)
        else:
            print(f.program.source)
        print(f.message[:2000])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
