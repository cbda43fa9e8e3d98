"""The suite's main loop: set up every column, check it against the floor, time rounds interleaved.

The main process runs the numpy floor and dy2st (eager and to_static); Paddle and torch run
in worker subprocesses. Each round times the main process's columns and then asks each
worker for one timing of its columns (the order of the processes, and of the columns inside
each, alternates from round to round). Per column the report gives the median ns per call
and the median over rounds of its ratio to the floor timed in the same round.
"""
from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

from . import frameworks, report, spec
from .workers import RemoteRunner, Runner, WorkerError, pin_threads, process_info

RTOL = 1e-4               # every column must match the numpy floor to this relative error
DEFAULT_PADDLE_VENV = "/work/venv-paddle/bin/python"


def machine_info():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    info = {"loadavg_at_start": list(os.getloadavg()), "nproc": usable, "cpu_count": os.cpu_count(), "cpu_model": cpu, "python": platform.python_version(),
            "numpy": np.__version__, "platform": platform.platform()}
    try:
        import threadpoolctl
        blas = [p for p in threadpoolctl.threadpool_info() if p.get("user_api") == "blas"]
        info["blas"] = ", ".join(f"{p.get('internal_api')} {p.get('version')} ({p.get('num_threads')} threads, "
                                 f"{p.get('threading_layer')}, {p.get('architecture')})" for p in blas) or "unknown"
    except Exception:
        info["blas"] = "unknown (threadpoolctl not importable)"
    return info


def machine_line(m):
    load = m.get("loadavg_at_start"), m.get("loadavg_at_end")
    load = ", load average {:.1f} at start, {:.1f} at end".format(load[0][0], load[1][0]) if all(load) else ""
    return (f"machine: {m['nproc']} CPUs ({m['cpu_model']}), Python {m['python']}, numpy {m['numpy']}, "
            f"BLAS {m['blas']}{load}")


def find_python(module, explicit, env_var, fallback=None):
    """(python, how) for a worker needing ``module``; python None means absent (how says why)."""
    if explicit:
        return explicit, "--{}-python".format(module)
    if importlib.util.find_spec(module) is not None:
        return sys.executable, "the suite's own Python"
    if os.environ.get(env_var):
        return os.environ[env_var], f"${env_var}"
    if fallback and os.path.exists(fallback):
        return fallback, fallback
    where = f"not importable in {sys.executable}, ${env_var} unset"
    return None, where + (f", {fallback} missing" if fallback else "")



def _policy_sample():
    """One sample of dy2st's BLAS contention policy now (a no-op unless the policy is 'auto')."""
    from runtime.ops import blas_threads
    blas_threads.recheck()

class Suite:
    def __init__(self, workloads, rounds, min_time, tiny=False, paddle=True, torch=True, paddle_python=None,
                 torch_python=None, memory=True, settle=0.0, threads=0, log=print):
        self.workloads, self.rounds, self.min_time, self.tiny = workloads, rounds, min_time, tiny
        self.want = {"paddle": paddle, "torch": torch}
        self.explicit = {"paddle": paddle_python, "torch": torch_python}
        self.memory = memory
        self.settle = settle
        self.threads = threads
        self._limiter = pin_threads(threads) if threads else None
        self.log = log
        self.tmp = tempfile.mkdtemp(prefix="dy2st-bench-")
        import dy2st
        self.dy2st = dy2st
        self.local = Runner({"numpy": frameworks.FloorAdapter(), "ours": frameworks.PaddleAdapter(dy2st, "dy2st")})
        self.remotes, self.absent, self.processes = {}, {}, {"main": process_info({"dy2st": dy2st.__version__})}

    # ---------------------------------------------------------------- workers
    def start_workers(self):
        envs = {"paddle": ("DY2ST_PADDLE_PYTHON", DEFAULT_PADDLE_VENV), "torch": ("DY2ST_TORCH_PYTHON", None)}
        for fw, (env_var, fallback) in envs.items():
            if not self.want[fw]:
                self.absent[fw] = f"--no-{fw}"
                continue
            python, how = find_python(fw, self.explicit[fw], env_var, fallback)
            if python is None:
                self.absent[fw] = how
                continue
            log_path = os.path.join(self.tmp, f"{fw}-worker.log")
            t0 = time.perf_counter()
            try:
                remote = RemoteRunner(fw, python, log_path, self.threads)
                info = remote.hello()
            except (WorkerError, OSError) as exc:
                self.absent[fw] = f"worker with {python} ({how}) failed to start: {str(exc).strip()[-600:]}"
                continue
            info["python_from"] = how
            info["startup_s"] = time.perf_counter() - t0
            self.processes[fw] = info
            self.remotes[fw] = remote
            self.log(f"{fw} worker: {python} ({how}), {fw} {info.get(fw)}, started in {info['startup_s']:.1f} s")
        for fw, why in self.absent.items():
            self.processes[fw] = {"absent": why}
            self.log(f"{fw}: absent ({why})")

    def close(self):
        for remote in self.remotes.values():
            remote.close()
        if self._limiter is not None:
            self._limiter.restore_original_limits()
            for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
                os.environ.pop(k, None)
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---------------------------------------------------------------- one workload
    def run_workload(self, name):
        model, kind, cfg, shapes = spec.resolve(name, self.tiny)
        weights = spec.make_weights(model, cfg)
        inputs = spec.make_inputs(shapes, spec.n_classes(model, cfg))
        npz = os.path.join(self.tmp, "arrays.npz")
        np.savez(npz, **{f"w:{k}": v for k, v in weights.items()}, **{f"i:{k}": v for k, v in inputs.items()})
        cols = {c: {"status": "absent", "why": self.absent.get(c.split(".")[0])} for c in report.COLUMNS}

        runners = {"main": self.local}
        status = dict(self.local.setup(name, self.tiny, weights, inputs))
        for fw, remote in list(self.remotes.items()):
            try:
                status.update(remote.setup(name, self.tiny, npz, os.path.join(self.tmp, f"{fw}-out.npz")))
                runners[fw] = remote
            except WorkerError as exc:
                for c in report.COLUMNS:
                    if c.startswith(fw + "."):
                        status[c] = {"status": "error", "error": f"worker: {exc}"}
        outputs = {}
        for r in runners.values():
            outputs.update(r.outputs())
        ref = outputs.get("numpy.floor")
        for cid, st in status.items():
            col = cols.setdefault(cid, {})
            col.update({k: v for k, v in st.items() if v not in (None, [])})
            col.pop("why", None)
            if st["status"] == "ok" and cid != "numpy.floor":
                if ref is None:
                    col["status"] = "unchecked"
                    continue
                err = frameworks.compare(outputs.get(cid, {}), ref)
                col["rel_err"] = err
                if not err <= RTOL:
                    col["status"] = "mismatch"
            if col.get("error"):
                self.log(f"  {name}: {cid} error: {col['error']}")
            if col["status"] == "mismatch":
                self.log(f"  {name}: {cid} MISMATCH against the numpy floor (max rel err {col['rel_err']:.2e})")
        if not self.rounds:
            self._teardown(runners)
            return self._entry(name, kind, cfg, shapes, cols)

        timed = {rn: [c for c in report.COLUMNS if cols[c]["status"] == "ok" and self._owner(c) == rn]
                 for rn in runners}
        timed = {rn: cs for rn, cs in timed.items() if cs}
        for rn, cs in list(timed.items()):
            try:
                for cid, n in runners[rn].calibrate(cs, self.min_time).items():
                    cols[cid]["calls_per_timing"] = n
                    cols[cid]["ns"] = []
            except WorkerError as exc:
                self._worker_failed(rn, cs, cols, exc)
                del timed[rn]
        order = list(timed)
        for r in range(self.rounds):
            for rn in (order if r % 2 == 0 else order[::-1]):
                if rn not in timed:
                    continue
                if self.settle and len(timed) > 1:
                    if rn == "main":
                        _policy_sample()
                    time.sleep(self.settle)   # let the previous process's spinning BLAS/OpenMP threads go idle
                    if rn == "main":
                        # dy2st's contention policy (runtime/ops/blas_threads.py) judges the other processes'
                        # load over its last sample window, which would otherwise hold the other workers'
                        # timing rounds: it then runs our process (floor included) on one BLAS thread while
                        # they sit idle. Sampling over the settle period gives it the machine as it is now.
                        _policy_sample()
                try:
                    res = runners[rn].round(timed[rn], r)
                except WorkerError as exc:
                    self._worker_failed(rn, timed.pop(rn), cols, exc)
                    continue
                for cid, ns in res.items():
                    cols[cid]["ns"].append(ns)
        self._teardown(runners)
        floor_ns = cols["numpy.floor"].get("ns") or []
        for cid, col in cols.items():
            ns = col.get("ns")
            if col["status"] == "ok" and ns:
                col["median_ns"] = statistics.median(ns)
                if len(floor_ns) == len(ns):
                    col["ratio_floor"] = statistics.median(a / b for a, b in zip(ns, floor_ns))
        return self._entry(name, kind, cfg, shapes, cols)

    @staticmethod
    def _owner(cid):
        fw = cid.split(".")[0]
        return "main" if fw in ("numpy", "ours") else fw

    def _worker_failed(self, rn, cids, cols, exc):
        for cid in cids:
            cols[cid]["status"] = "error"
            cols[cid]["error"] = f"worker: {exc}"
        self.log(f"  {rn} worker failed: {exc}")
        if self.remotes.get(rn) and self.remotes[rn].proc.poll() is not None:
            self.remotes.pop(rn).close()
            self.absent[rn] = "worker died during the run"

    def _teardown(self, runners):
        for rn, r in runners.items():
            try:
                r.teardown()
            except WorkerError:
                pass

    @staticmethod
    def _paired(cols, a, b):
        """Median over rounds of a/b (both timed in the same rounds), else None."""
        ca, cb = cols.get(a, {}), cols.get(b, {})
        na, nb = ca.get("ns"), cb.get("ns")
        if ca.get("status") != "ok" or cb.get("status") != "ok" or not na or not nb or len(na) != len(nb):
            return None
        return statistics.median(x / y for x, y in zip(na, nb))

    def _entry(self, name, kind, cfg, shapes, cols):
        fc = lambda c: cols[c].get("first_call_s") if cols[c]["status"] == "ok" else None
        ratios = {"ours_static_vs_eager": self._paired(cols, "ours.static", "ours.eager"),
                  "ours_static_vs_paddle_static": self._paired(cols, "ours.static", "paddle.static"),
                  "ours_static_vs_paddle_eager": self._paired(cols, "ours.static", "paddle.eager"),
                  "ours_static_vs_torch_script": self._paired(cols, "ours.static", "torch.script"),
                  "ours_static_vs_torch_eager": self._paired(cols, "ours.static", "torch.eager"),
                  "first_call_ours_vs_paddle": (fc("ours.static") / fc("paddle.static"))
                  if fc("ours.static") and fc("paddle.static") else None}
        return {"title": spec.WORKLOADS[name]["title"], "kind": kind, "cfg": cfg, "inputs": shapes,
                "columns": cols, "ratios": ratios}

    # ---------------------------------------------------------------- everything
    def run(self):
        t0 = time.perf_counter()
        results = {"benchmark": "suite", "machine": machine_info(), "tiny": self.tiny,
                   "settings": {"rounds": self.rounds, "min_time_s": self.min_time, "settle_s": self.settle,
                                "threads": self.threads or "unpinned", "rtol": RTOL,
                                "workloads": self.workloads, "sgd_lr": spec.LR},
                   "workloads": {}}
        self.start_workers()
        results["processes"] = self.processes
        for name in self.workloads:
            t1 = time.perf_counter()
            results["workloads"][name] = self.run_workload(name)
            self.log(f"  {name}: {time.perf_counter() - t1:.1f} s")
        if self.memory:
            batch = 4 if self.tiny else 256
            mem = frameworks.peak_memory(self.dy2st, batch=batch)
            mem["batch"] = batch
            e, s = mem.get("eager", {}).get("peak_bytes"), mem.get("static", {}).get("peak_bytes")
            mem["static_vs_eager"] = s / e if e and s is not None else None
            results["memory"] = mem
        results["targets"] = report.evaluate_targets(results)
        results["elapsed_s"] = time.perf_counter() - t0
        results["machine"]["loadavg_at_end"] = list(os.getloadavg())
        return results
