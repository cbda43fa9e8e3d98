"""Runners: one set of columns timed in this process, or in a worker subprocess over a line protocol.

Run as a script this file is the worker: ``python workers.py --framework paddle|torch``. It
reads one JSON request per line on stdin and writes one JSON reply per line on the original
stdout (anything the framework prints goes to stderr). Requests:
``{"op": "hello"}``, ``{"op": "setup", "workload", "tiny", "npz", "out"}`` (weights and
inputs from the npz; outputs of every column written to ``out``), ``{"op": "calibrate",
"columns", "min_time"}``, ``{"op": "round", "columns", "index"}`` (ns per call of each
column; the order alternates with the index), ``{"op": "teardown"}``, ``{"op": "quit"}``.
"""
from __future__ import annotations

import gc
import json
import os
import platform
import subprocess
import sys

if __name__ == "__main__" and __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "suite"

import numpy as np  # noqa: E402

from suite import timing  # noqa: E402

ENV_KEYS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE",
            "KMP_BLOCKTIME", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "FLAGS_enable_pir_api",
            "DY2ST_BENCH_THREADS")


def process_info(extra=None):
    """Versions, thread settings and BLAS pools of this process (for the JSON)."""
    info = {"python": platform.python_version(), "executable": sys.executable, "numpy": np.__version__,
            "env": {k: os.environ.get(k) for k in ENV_KEYS}}
    try:
        import threadpoolctl
        info["threadpools"] = [{k: p.get(k) for k in ("user_api", "internal_api", "prefix", "num_threads",
                                                          "version", "threading_layer", "architecture")}
                               for p in threadpoolctl.threadpool_info()]
    except Exception as exc:  # threadpoolctl is optional in the workers' environments
        info["threadpools"] = f"unavailable: {type(exc).__name__}: {exc}"
    if extra:
        info.update(extra)
    return info


class Runner:
    """Columns of one or more adapters, set up and timed in this process."""

    def __init__(self, adapters):
        self.adapters = adapters          # {prefix: adapter}; column ids are "prefix.column"
        self.columns = {}

    def setup(self, workload, tiny, weights, inputs):
        self.teardown()
        report = {}
        for prefix, adapter in self.adapters.items():
            for name, col in adapter.setup(workload, tiny, weights, inputs).items():
                cid = f"{prefix}.{name}"
                self.columns[cid] = col
                report[cid] = {"status": "error" if col.error else "ok", "error": col.error,
                               "first_call_s": col.first_call_s, "warnings": col.warnings}
        return report

    def outputs(self):
        return {cid: col.outputs for cid, col in self.columns.items() if not col.error}

    def calibrate(self, cids, min_time):
        for cid in cids:
            col = self.columns[cid]
            col.number = timing.calibrate(col.fn, min_time, col.ctx)
        return {cid: self.columns[cid].number for cid in cids}

    def round(self, cids, index):
        order = list(cids) if index % 2 == 0 else list(reversed(cids))
        return {cid: timing.time_calls(self.columns[cid].fn, self.columns[cid].number, self.columns[cid].ctx)
                for cid in order}

    def teardown(self):
        self.columns = {}
        gc.collect()


def _save_npz(path, outputs):
    flat = {f"{cid}|{k}": np.asarray(v) for cid, outs in outputs.items() for k, v in outs.items()}
    np.savez(path, **flat)


def load_npz(path):
    with np.load(path) as data:
        out = {}
        for key in data.files:
            cid, k = key.split("|", 1)
            out.setdefault(cid, {})[k] = data[key]
        return out


def split_arrays(npz_path):
    with np.load(npz_path) as data:
        weights = {k[2:]: data[k] for k in data.files if k.startswith("w:")}
        inputs = {k[2:]: data[k] for k in data.files if k.startswith("i:")}
    return weights, inputs


def pin_threads(n):
    """``--threads N``: limit this process's BLAS/OpenMP pools to N (the env vars cover the workers)."""
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[k] = str(n)
    try:
        import threadpoolctl
        return threadpoolctl.threadpool_limits(n)
    except ImportError:
        return None


def _make_adapters(framework):
    from suite import frameworks
    threads = int(os.environ.get("DY2ST_BENCH_THREADS") or 0)
    limiter = pin_threads(threads) if threads else None  # noqa: F841  (kept alive for the process)
    if framework == "paddle":
        os.environ.pop("FLAGS_enable_pir_api", None)   # Paddle's default (PIR) unless set by hand
        import paddle
        extra = {"paddle": paddle.__version__}
        try:
            extra["paddle_flags"] = {k: v for k, v in paddle.get_flags(["FLAGS_enable_pir_api"]).items()}
        except Exception:
            pass
        return {"paddle": frameworks.PaddleAdapter(paddle, "paddle")}, extra
    if framework == "torch":
        adapter = frameworks.TorchAdapter()
        torch = adapter.torch
        if threads:
            torch.set_num_threads(threads)
        return {"torch": adapter}, {"torch": torch.__version__, "torch_threads": torch.get_num_threads(),
                                    "torch_interop_threads": torch.get_num_interop_threads()}
    raise ValueError(f"unknown framework {framework!r}")


def worker_main(framework):
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                      # whatever the framework prints goes to stderr
    sys.stdout = sys.stderr

    def reply(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    try:
        adapters, extra = _make_adapters(framework)
        runner = Runner(adapters)
    except Exception as exc:
        from suite.frameworks import describe_error
        reply({"ok": False, "error": describe_error(exc)})
        return 1
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        try:
            if op == "hello":
                reply({"ok": True, "info": process_info(extra)})
            elif op == "setup":
                weights, inputs = split_arrays(req["npz"])
                report = runner.setup(req["workload"], req["tiny"], weights, inputs)
                _save_npz(req["out"], runner.outputs())
                reply({"ok": True, "columns": report})
            elif op == "calibrate":
                reply({"ok": True, "numbers": runner.calibrate(req["columns"], req["min_time"])})
            elif op == "round":
                reply({"ok": True, "ns": runner.round(req["columns"], req["index"])})
            elif op == "teardown":
                runner.teardown()
                reply({"ok": True})
            elif op == "quit":
                reply({"ok": True})
                return 0
            else:
                reply({"ok": False, "error": f"unknown op {op!r}"})
        except Exception as exc:
            from suite.frameworks import describe_error
            reply({"ok": False, "error": describe_error(exc)})
    return 0


class WorkerError(RuntimeError):
    pass


class RemoteRunner:
    """The Runner interface, served by a worker subprocess running ``python workers.py``."""

    def __init__(self, framework, python, log_path, threads=0):
        self.framework, self.python, self.log_path = framework, python, log_path
        env = dict(os.environ)
        if framework == "paddle":
            env.pop("FLAGS_enable_pir_api", None)
        if threads:
            env["DY2ST_BENCH_THREADS"] = str(threads)
            env.update({k: str(threads) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "--framework", framework],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, bufsize=1, env=env)
        self._outputs = {}

    def _ask(self, **req):
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError) as exc:
            line = ""
            err = repr(exc)
        else:
            err = ""
        if not line:
            raise WorkerError(f"{self.framework} worker ({self.python}) died {err}; last stderr lines:\n"
                              + self.stderr_tail())
        rep = json.loads(line)
        if not rep.get("ok"):
            raise WorkerError(rep.get("error", "unknown worker error"))
        return rep

    def stderr_tail(self, n=15):
        self.log.flush()
        try:
            with open(self.log_path) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def hello(self):
        info = self._ask(op="hello")["info"]
        return info

    def setup(self, workload, tiny, npz_path, out_path):
        rep = self._ask(op="setup", workload=workload, tiny=tiny, npz=npz_path, out=out_path)
        self._outputs = load_npz(out_path)
        return rep["columns"]

    def outputs(self):
        return self._outputs

    def calibrate(self, cids, min_time):
        return self._ask(op="calibrate", columns=list(cids), min_time=min_time)["numbers"]

    def round(self, cids, index):
        return self._ask(op="round", columns=list(cids), index=index)["ns"]

    def teardown(self):
        self._ask(op="teardown")

    def close(self):
        try:
            if self.proc.poll() is None:
                self._ask(op="quit")
                self.proc.wait(timeout=30)
        except Exception:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        finally:
            self.log.close()


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="benchmark worker (speaks the line protocol on stdin/stdout)")
    ap.add_argument("--framework", required=True, choices=["paddle", "torch"])
    sys.exit(worker_main(ap.parse_args().framework))
