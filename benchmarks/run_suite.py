"""The issue-7 benchmark suite: numpy floor, dy2st eager and to_static, PaddlePaddle, PyTorch.

    python benchmarks/run_suite.py [--quick] [--json out.json] [--workloads a,b] [--no-paddle]
                                   [--no-torch] [--paddle-python PATH] [--torch-python PATH]

Prints one row per workload (µs per call and the ratio to the hand-written numpy floor for
every column), the first-call times, the peak-memory row and issue 7's targets (met /
MISSED). Paddle and torch run in worker subprocesses, interleaved round by round with the
main process. See benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from suite import report, spec  # noqa: E402
from suite.driver import Suite, machine_line  # noqa: E402

FULL = {"rounds": 15, "min_time": 0.05, "settle": 0.5}
QUICK = {"rounds": 7, "min_time": 0.02, "settle": 0.0}


_BUSY_LOOP = "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end:\n    pass\n"


def start_busy_loops(n, limit):
    """``n`` processes spinning one core each, for at most ``limit`` seconds (so a crash leaves none)."""
    import subprocess
    return [subprocess.Popen([sys.executable, "-c", _BUSY_LOOP, str(limit)]) for _ in range(max(0, n))]


def stop_busy_loops(procs):
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=10)
        except Exception:
            p.kill()


MMAP_THRESHOLD = 1 << 25    # glibc's largest (32 MiB on 64-bit): arrays below it come from the heap
TRIM_THRESHOLD = 1 << 29    # free heap memory kept (not returned to the OS) up to this


def steady_malloc():
    """Fix glibc malloc's mmap and trim thresholds in this process (mallopt) and, through
    GLIBC_TUNABLES, in the worker processes started after this call. With glibc's adaptive defaults a
    process that allocates and frees multi-MiB arrays every call (the hand-written numpy floor: LeNet
    training took ~1,200-1,750 page faults and 2.4-3.3 ms of system time per step on a loaded machine)
    gives its memory back to the OS and faults it in again each call, and how often depends on the
    process's allocation history (the columns that ran before) and on the machine's load: the
    floor's time, hence every ratio to it, moved by 2-3x between runs (issue 17: 0.78x in an
    alternating profile vs 1.46x in the suite for train_lenet). Fixed thresholds make every column's
    allocations steady-state. Returns a description for the report, or None where not glibc."""
    import ctypes
    import platform
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        ok = libc.mallopt(-1, TRIM_THRESHOLD) == 1 and libc.mallopt(-3, MMAP_THRESHOLD) == 1   # M_TRIM, M_MMAP
    except (OSError, AttributeError):
        return None
    if not ok:
        return None
    os.environ.setdefault("GLIBC_TUNABLES", f"glibc.malloc.trim_threshold={TRIM_THRESHOLD}:"
                                            f"glibc.malloc.mmap_threshold={MMAP_THRESHOLD}")
    return f"malloc thresholds fixed (mmap {MMAP_THRESHOLD >> 20} MiB, trim {TRIM_THRESHOLD >> 20} MiB)"


def main(argv=None):
    ap = argparse.ArgumentParser(description="dy2st benchmark suite (issue 7)")
    ap.add_argument("--quick", action="store_true", help=f"short run: {QUICK['rounds']} rounds of "
                    f"{QUICK['min_time']} s timings (default {FULL['rounds']} rounds of {FULL['min_time']} s)")
    ap.add_argument("--json", metavar="PATH", help="write every number to PATH as JSON")
    ap.add_argument("--workloads", help="comma-separated subset of " + ",".join(spec.ORDER))
    ap.add_argument("--no-paddle", action="store_true", help="skip the PaddlePaddle columns")
    ap.add_argument("--no-torch", action="store_true", help="skip the PyTorch columns")
    ap.add_argument("--paddle-python", metavar="PATH", help="Python with paddle installed (default: this Python "
                    "if it imports paddle, else $DY2ST_PADDLE_PYTHON, else /work/venv-paddle/bin/python)")
    ap.add_argument("--torch-python", metavar="PATH", help="Python with torch installed (default: this Python "
                    "if it imports torch, else $DY2ST_TORCH_PYTHON)")
    ap.add_argument("--rounds", type=int, help="timing rounds per workload (overrides --quick)")
    ap.add_argument("--min-time", type=float, help="seconds one timing of a column lasts (overrides --quick)")
    ap.add_argument("--tiny", action="store_true", help="tiny model sizes (a smoke run; the numbers mean nothing)")
    ap.add_argument("--settle", type=float, default=None, help="seconds to sleep before each process's timing "
                    "(lets the previous process's spinning BLAS/OpenMP threads go idle; default 0.5, 0 with --quick)")
    ap.add_argument("--threads", type=int, default=0, help="pin every process's BLAS/OpenMP threads (and "
                    "torch's) to N; default: unpinned, the libraries' defaults")
    ap.add_argument("--no-memory", action="store_true", help="skip the peak-memory row")
    ap.add_argument("--contention", type=int, default=0, metavar="N",
                    help="run N busy-looping processes beside the benchmark for its whole duration (a shared "
                         "machine; each loop stops by itself after --contention-limit seconds)")
    ap.add_argument("--contention-limit", type=float, default=3600.0, metavar="S",
                    help="upper bound on the busy loops' lifetime in seconds (default 3600)")
    ap.add_argument("--malloc-default", action="store_true",
                    help="keep glibc's adaptive malloc thresholds (default: fixed in every process, see "
                         "steady_malloc: the floor's page faults otherwise make its time depend on load and history)")
    args = ap.parse_args(argv)
    malloc_note = None if args.malloc_default else steady_malloc()

    names = spec.ORDER
    if args.workloads:
        names = [n.strip() for n in args.workloads.split(",") if n.strip()]
        unknown = [n for n in names if n not in spec.WORKLOADS]
        if unknown:
            ap.error(f"unknown workload(s) {unknown}; choose from {spec.ORDER}")
    preset = QUICK if args.quick else FULL
    rounds = preset["rounds"] if args.rounds is None else args.rounds
    min_time = preset["min_time"] if args.min_time is None else args.min_time
    if rounds < 0 or min_time <= 0:
        ap.error("--rounds must be >= 0 and --min-time > 0")

    log = lambda msg: print(msg, file=sys.stderr, flush=True)
    suite = Suite(names, rounds, min_time, tiny=args.tiny, paddle=not args.no_paddle, torch=not args.no_torch,
                  paddle_python=args.paddle_python, torch_python=args.torch_python, memory=not args.no_memory,
                  settle=preset["settle"] if args.settle is None else args.settle,
                  threads=args.threads,
                  log=log)
    busy = start_busy_loops(args.contention, args.contention_limit)
    try:
        results = suite.run()
    finally:
        suite.close()
        stop_busy_loops(busy)
    if args.contention:
        results["contention"] = args.contention
    results["malloc"] = malloc_note or "glibc defaults"

    print(machine_line(results["machine"]))
    pinned = f"BLAS/OpenMP threads pinned to {args.threads}" if args.threads else "threads unpinned"
    if args.contention:
        pinned += f"; {args.contention} busy-looping process(es) running beside the benchmark"
    pinned += f"; {malloc_note}" if malloc_note else "; glibc malloc defaults"
    print(f"{rounds} rounds x {min_time} s per timing, {pinned}; median µs per call (median ratio to the numpy floor); "
          "inference in eval mode under no_grad")
    print(report.main_table(results))
    print()
    print(report.first_call_table(results))
    print()
    if "memory" in results:
        print(report.memory_lines(results["memory"]))
        print()
    print(report.targets_table(results["targets"]))
    for fw, info in results["processes"].items():
        if "absent" in info:
            print(f"{fw}: absent ({info['absent']})")
    print(f"total {results['elapsed_s']:.0f} s")
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(results, f, indent=1, default=float)
        os.replace(tmp, args.json)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
