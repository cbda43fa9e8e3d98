"""Suite-wide settings, applied before any test module imports the framework.

``DY2ST_BLAS_THREADS=1``: OpenBLAS's one- and two-thread kernels round float32 products differently in
the last bits, and the default policy switches between them with the machine's load
(runtime/ops/blas_threads.py). One fixed count keeps the many bit-for-bit comparisons of the suite
deterministic on a busy CI machine. Set the variable yourself to test another policy."""
import os

os.environ.setdefault("DY2ST_BLAS_THREADS", "1")


def pytest_runtest_teardown(item, nextitem):
    """Real Paddle runs only in subprocesses (tests/interop/paddle_runner.py): imported into the test process
    it registers its protobuf files in the default pool and changes global state other tests read. A shared
    code string that says ``from paddle.x import y`` where it means the framework passed in as ``paddle``
    is the usual cause; this names the test that did it."""
    import sys
    if "paddle" in sys.modules and not getattr(pytest_runtest_teardown, "reported", False):
        pytest_runtest_teardown.reported = True
        raise AssertionError(f"{item.nodeid} imported the real paddle package into the test process; run it in a "
                             "subprocess (tests/interop/paddle_runner.py) or use the framework object passed in")
