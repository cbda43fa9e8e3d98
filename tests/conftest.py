"""Suite-wide settings, applied before any test module imports the framework.

``DY2ST_BLAS_THREADS=1``: OpenBLAS's one- and two-thread kernels round float32 products differently in
the last bits, and the default policy switches between them with the machine's load
(runtime/ops/blas_threads.py). One fixed count keeps the many bit-for-bit comparisons of the suite
deterministic on a busy CI machine. Set the variable yourself to test another policy."""
import os

os.environ.setdefault("DY2ST_BLAS_THREADS", "1")
