"""Thread count of numpy's BLAS: one cheap, cached switch and the process-wide policy.

Measured on the 2-core target (benchmarks/kernels.py --blas): OpenBLAS already runs products of
at most 262144 multiply-adds on one thread (every batch-1 layer, the LSTM step, the control-flow
model, each per-sample GEMM of a batched matmul such as LeNet's convolutions), and above that two
threads took 0.51-0.68x the time of one on an idle second core (MLP batch 64, transformer
projections, LeNet fc1) while no product size ran consistently faster on one thread. So a
per-call size policy does not pay. When the second core is busy with another process, two-thread
products take 10-100x longer (the fork-join waits for a descheduled worker; measured 15x on a 512x512
product with the machine loaded): so the default policy ('auto', below) watches the other processes'
load on our CPUs and drops to fewer threads while they are busy. ``DY2ST_BLAS_THREADS=N`` fixes the
count instead, ``=blas`` leaves the library alone. threadpoolctl is optional: without it the library is found in the
process's memory map (Linux) or in numpy's bundled-library folder.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import time

import numpy as np

_UNSET = object()
_lib = _UNSET          # (setter, getter) of numpy's OpenBLAS, or None when unavailable
_current = None        # last thread count we set (None: not known)


def _thread_functions(path):
    """(set, get) of the OpenBLAS at ``path`` (already loaded by numpy: CDLL returns that copy), or None."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for prefix in ("scipy_openblas", "openblas"):
        for suffix in ("64_", ""):
            s, g = f"{prefix}_set_num_threads{suffix}", f"{prefix}_get_num_threads{suffix}"
            if hasattr(lib, s) and hasattr(lib, g):
                return getattr(lib, s), getattr(lib, g)
    return None


def _loaded_numpy_openblas_paths():
    """Paths of the OpenBLAS libraries numpy loaded: the process's memory map where the OS has one
    (Linux), else the libraries numpy's wheel bundles (numpy.libs / numpy/.dylibs)."""
    site = os.path.dirname(os.path.dirname(np.__file__))
    mine = (os.path.join(site, "numpy"), os.path.join(site, "numpy.libs"))
    paths = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.rstrip("\n").split(" ", 5)[-1].strip()
                if "openblas" in os.path.basename(path) and path.startswith(mine) and path not in paths:
                    paths.append(path)
    except OSError:
        import glob
        for d in (os.path.join(site, "numpy.libs"), os.path.join(site, "numpy", ".dylibs")):
            paths += sorted(glob.glob(os.path.join(d, "*openblas*")))
    return paths


def _numpy_openblas():
    """ctypes (set, get) thread-count functions of the OpenBLAS numpy links, or None.

    threadpoolctl is used when installed; without it (it is not a dependency) the library is found
    from the process's memory map, so DY2ST_BLAS_THREADS works in a plain install too."""
    np_dir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy")
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        ThreadpoolController = None
    if ThreadpoolController is not None:
        try:
            controllers = ThreadpoolController().lib_controllers
        except Exception:   # threadpoolctl could not inspect the process: try the memory map
            controllers = []
        for m in controllers:
            if m.user_api == "blas" and m.internal_api == "openblas" and m.filepath.startswith(np_dir):
                fns = _thread_functions(m.filepath)
                if fns is not None:
                    return fns
    for path in _loaded_numpy_openblas_paths():
        fns = _thread_functions(path)
        if fns is not None:
            return fns
    return None


def _ensure():
    global _lib, _current
    if _lib is _UNSET:
        _lib = _numpy_openblas()
        if _lib is not None:
            _current = int(_lib[1]())
    return _lib


def available() -> bool:
    """Whether the thread count of numpy's BLAS can be read and changed."""
    return _ensure() is not None


def get_threads():
    """Current thread count of numpy's BLAS, or None when it cannot be controlled."""
    return _current if _ensure() is not None else None


def set_threads(n: int) -> None:
    """Set numpy's BLAS thread count; a no-op when unchanged (one comparison) or unavailable."""
    global _current
    if n == _current:
        return
    lib = _ensure()
    if lib is None or n == _current:
        return
    lib[0](int(n))
    _current = int(n)


@contextlib.contextmanager
def limit(n: int):
    """Run a block with ``n`` BLAS threads, restoring the previous count after."""
    before = get_threads()
    set_threads(n)
    try:
        yield
    finally:
        if before is not None:
            set_threads(before)


# -- the contention policy ('auto') -----------------------------------------------------------------------
# Every _INTERVAL seconds at most (checked where BLAS work starts: a converted program's run, an eager
# matmul-family op, a backward pass) the CPUs this process may use are sampled from /proc/stat: the
# busy time other processes took on them since the last sample, in cores. While another process keeps
# a core busy, BLAS runs on the cores left (one fewer thread per busy core, at least one); when they
# are free again it returns to the library's own count. Only a single-threaded Python process adapts
# (changing OpenBLAS's count while another thread is inside a BLAS call is not safe).
_INTERVAL = 0.5
_MIN_WINDOW = 0.05  # seconds: a shorter sample window says too little about the others' load
_auto = False
_default = None        # the library's thread count before we changed it
_next_check = float("inf")
_last = None           # (wall, our cpu seconds, busy jiffies of our cpus)
_cpus = None           # "cpuN" names of the CPUs we may run on
_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") and "SC_CLK_TCK" in os.sysconf_names else 100
_monotonic = time.monotonic


def _busy_jiffies():
    """Busy jiffies (all but idle and iowait) summed over the CPUs in ``_cpus``, or None."""
    try:
        with open("/proc/stat") as f:
            text = f.read()
    except OSError:
        return None
    total = 0
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if name in _cpus:
            fields = [int(v) for v in rest.split()]
            total += sum(fields) - fields[3] - (fields[4] if len(fields) > 4 else 0)
    return total


def threads_for(others_busy, cores, default):
    """BLAS threads for ``cores`` usable CPUs while other processes keep ``others_busy`` cores busy."""
    return max(1, min(default, cores - int(others_busy + 0.5)))


def recheck():
    """Sample the other processes' load and set the thread count (see the policy comment above)."""
    global _next_check, _last
    now = _monotonic()
    _next_check = now + _INTERVAL
    if not _auto or threading.active_count() > 1:
        return
    busy = _busy_jiffies()
    if busy is None:
        return
    ours = time.process_time()
    if _last is not None and now - _last[0] < _MIN_WINDOW:
        _next_check = _last[0] + _MIN_WINDOW    # too short a window to tell: keep the older sample
        return
    last, _last = _last, (now, ours, busy)
    if last is None:
        return
    others = max(0.0, ((busy - last[2]) / _HZ - (ours - last[1])) / (now - last[0]))
    set_threads(threads_for(others, len(_cpus), _default))


def _start_auto():
    global _auto, _default, _cpus, _next_check, _last
    if _ensure() is None or not os.path.exists("/proc/stat"):
        return
    try:
        ids = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        ids = list(range(os.cpu_count() or 1))
    _cpus = {f"cpu{i}" for i in ids}
    _default = get_threads()
    _auto = _default is not None and _default > 1
    _next_check = _monotonic() if _auto else float("inf")
    if _auto:
        # the first sample now (at import), so that the first BLAS work already knows whether the other
        # cores are busy: without it the whole first call (tracing, the first run of a model) ran
        # 2-thread products against a busy core (MobileNet v1's first call took 3.5x longer at load 8)
        busy = _busy_jiffies()
        if busy is not None:
            _last = (_monotonic(), time.process_time(), busy)


def apply_policy(value=None) -> None:
    """Apply ``DY2ST_BLAS_THREADS`` (or ``value``): a positive integer fixes the thread count; 'auto'
    (the default) follows the contention policy above; 'blas' leaves the library's own count."""
    global _auto, _next_check
    value = os.environ.get("DY2ST_BLAS_THREADS", "") if value is None else str(value)
    value = value.strip().lower()
    _auto, _next_check = False, float("inf")
    if value in ("", "auto"):
        _start_auto()
        return
    if value == "blas":
        return
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"DY2ST_BLAS_THREADS must be a positive integer, 'auto' or 'blas', got {value!r}") from None
    if n < 1:
        raise ValueError(f"DY2ST_BLAS_THREADS must be a positive integer, 'auto' or 'blas', got {value!r}")
    set_threads(n)


def maybe_recheck():
    """The cheap check at the places BLAS work starts: a clock read and a comparison."""
    if _monotonic() >= _next_check:
        recheck()


apply_policy()


# the op types whose eager kernels are BLAS-heavy (their *_grad ops run inside backward, which checks once)
BLAS_OPS = ("matmul_v2", "matmul", "mul", "bmm", "fused_gemm_epilogue", "conv2d", "depthwise_conv2d",
            "conv2d_transpose", "depthwise_conv2d_transpose", "conv3d", "conv3d_transpose", "addmm",
            "bilinear_tensor_product")


def mark_blas_ops(ops):
    """Flag the registered `BLAS_OPS` so eager dispatch runs `maybe_recheck` before them."""
    for t in BLAS_OPS:
        if t in ops:
            ops[t].blas = True
