"""Run a folder of Paddle's test files twice — real Paddle 3.3.1, and dy2st standing in for ``paddle`` (the
``paddle_shim`` pytest plugin) — one pytest subprocess per file and mode, and tabulate per file the tests
Paddle passes and how many of those dy2st passes, our failures grouped by their first error line.

Used by ``dy2st/run_harness.py`` and ``legacy_api/run_harness.py`` (each says where its files live and
which environment its suite needs):

    python run_harness.py [--mode both|paddle|ours[,...]] [--jobs N] [--timeout S] [files...]
    python run_harness.py --summary [ours-mode]

A mode other than ``paddle`` runs dy2st from ``$DY2ST_ROOT`` (default: this checkout), so a baseline
checkout can be measured as ``DY2ST_ROOT=/path/old python run_harness.py --mode ours_old``. Results:
``results/<mode>/<file>.{xml,log}``, ``results/table[_<mode>].md`` and ``results/summary[_<mode>].json``.
A file whose process dies (Paddle segfaults on some tests) is re-run one test per process.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

PY = sys.executable
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))   # the dy2st checkout
PLUGINS = os.path.dirname(os.path.abspath(__file__))                          # paddle_shim.py


class Suite:
    def __init__(self, here, env=None, examples=3):
        self.here = here
        self.tests = os.environ.get("PADDLE_SUITE_TESTS", os.path.join(here, "tests"))   # Paddle's files
        self.env = dict(env or {})
        self.examples = examples          # failing tests listed per error group

    def _path(self, *parts):
        return os.path.join(self.here, "results", *parts)

    # -- running ---------------------------------------------------------------------------------
    def run_one(self, mode, fname, timeout):
        os.makedirs(self._path(mode), exist_ok=True)
        xml = self._path(mode, fname.replace(".py", ".xml"))
        log = self._path(mode, fname.replace(".py", ".log"))
        if os.path.exists(xml):
            os.remove(xml)      # a crashed run leaves none; a stale one must not be read as this run's
        work = os.path.join(self.here, "work", mode, fname[:-3])
        os.makedirs(work, exist_ok=True)
        env = dict(os.environ, **self.env, FLAGS_use_stride_kernel="0", CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
        ours = mode != "paddle"
        env["PYTHONPATH"] = os.pathsep.join([self.tests, PLUGINS] + ([os.environ.get("DY2ST_ROOT", REPO)] if ours else []))
        cmd = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.path.join(self.tests, "pytest.ini"),
               "--rootdir", self.tests, "--junitxml", xml, "-o", "junit_family=xunit1", os.path.join(self.tests, fname)]
        if ours:
            cmd[3:3] = ["-p", "paddle_shim"]
        try:
            p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
            text = p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            text = "TIMEOUT"
            if os.path.exists(xml):
                os.remove(xml)
        with open(log, "w") as f:
            f.write(text)
        if not os.path.exists(xml):
            self._rerun_one_by_one(cmd, xml, log, fname, work, env, timeout)
        return fname

    def _rerun_one_by_one(self, cmd, xml, log, fname, work, env, timeout):
        """The process died: run the file's tests one per process and merge their results."""
        coll = subprocess.run(cmd[:-1] + ["--collect-only", cmd[-1]], cwd=work, env=env,
                              capture_output=True, text=True, timeout=timeout)
        ids = [line.strip() for line in coll.stdout.splitlines() if "::" in line]
        suite = ET.Element("testsuite")
        for i, tid in enumerate(ids):
            part = xml + f".part{i}"
            one = [part if c == xml else c for c in cmd[:-1]] + [os.path.join(self.tests, tid)]
            try:
                subprocess.run(one, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
            cls, name = tid.split("::")[-2], tid.split("::")[-1]
            if os.path.exists(part):
                for tc in ET.parse(part).getroot().iter("testcase"):
                    suite.append(tc)
                os.remove(part)
            else:
                tc = ET.SubElement(suite, "testcase", classname=f"{fname[:-3]}.{cls}", name=name)
                ET.SubElement(tc, "error", message="process crashed (segfault) running this test")
        ET.ElementTree(suite).write(xml)
        with open(log, "a") as f:
            f.write(f"\n[harness] the run crashed; re-ran {len(ids)} tests one per process\n")

    # -- reading ---------------------------------------------------------------------------------
    @staticmethod
    def first_error_line(node):
        for tag in ("failure", "error"):
            el = node.find(tag)
            if el is not None:
                msg = (el.get("message") or "").strip()
                elines = [line[1:].strip() for line in (el.text or "").splitlines() if line.startswith("E ")]
                exc = next((line for line in elines if re.match(r"^[\w.]+(Error|Exception|Interrupt|Exit)\b", line)),
                           None)
                line = exc or msg.splitlines()[0] if (exc or msg) else (elines[0] if elines else tag)
                return line[:300]
        return None

    def parse(self, mode, fname):
        xml = self._path(mode, fname.replace(".py", ".xml"))
        if not os.path.exists(xml):
            log = open(self._path(mode, fname.replace(".py", ".log"))).read().strip()
            return None, log.splitlines()[-1][:300] if log else "no output"
        res = {}
        for tc in ET.parse(xml).getroot().iter("testcase"):
            name = f"{tc.get('classname')}::{tc.get('name')}"
            if tc.find("skipped") is not None:
                res[name] = ("skip", None)
            else:
                err = self.first_error_line(tc)
                res[name] = ("pass", None) if err is None else ("fail", err)
        return res, None

    def summarize(self, ours="ours"):
        files = sorted(f[:-4] + ".py" for f in os.listdir(self._path(ours)) if f.endswith(".log"))
        rows, groups, details = [], defaultdict(list), {}
        for f in files:
            if not os.path.exists(self._path("paddle", f.replace(".py", ".log"))):
                continue
            pres, _ = self.parse("paddle", f)
            ores, oerr = self.parse(ours, f)
            pres = pres or {}
            p_pass = [n for n, (s, _) in pres.items() if s == "pass"]
            o_pass = [n for n in p_pass if ores and ores.get(n, ("missing",))[0] == "pass"]
            for n in p_pass:
                if not ores:
                    groups[f"[file did not run] {oerr}"].append(f"{f}::{n}")
                elif ores.get(n, ("missing",))[0] != "pass":
                    st = ores.get(n, ("missing", "not collected"))
                    groups[st[1] or st[0]].append(f"{f}::{n}")
            rows.append((f, len(pres), len(p_pass), len(o_pass)))
            details[f] = {"paddle": pres, "ours": ores or {}, "ours_file_error": oerr}
        suffix = "" if ours == "ours" else f"_{ours}"
        table = self._path(f"table{suffix}.md")
        with open(table, "w") as out:
            out.write("| file | tests | Paddle passes | we pass |\n|---|---|---|---|\n")
            for r in rows:
                out.write(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |\n")
            totals = [sum(r[k] for r in rows) for k in (1, 2, 3)]
            out.write(f"| **total ({len(rows)} files)** | {totals[0]} | {totals[1]} | {totals[2]} |\n\n")
            out.write("## our failures (of tests Paddle passes), grouped by first error line\n")
            for msg, tests in sorted(groups.items(), key=lambda kv: -len(kv[1])):
                out.write(f"\n### {len(tests)}: {msg}\n")
                for t in tests[:self.examples]:
                    out.write(f"- {t}\n")
        with open(self._path(f"summary{suffix}.json"), "w") as out:
            json.dump(details, out, indent=1, default=str)
        print(open(table).read())

    # -- command line ----------------------------------------------------------------------------
    def main(self, argv=None):
        argv = sys.argv[1:] if argv is None else argv
        if argv and argv[0] == "--summary":
            return self.summarize(argv[1] if len(argv) > 1 else "ours")
        ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
        ap.add_argument("--mode", default="both", help="both, paddle, ours, or a comma-separated list")
        ap.add_argument("--jobs", type=int, default=2)
        ap.add_argument("--timeout", type=int, default=600)
        ap.add_argument("files", nargs="*")
        a = ap.parse_args(argv)
        if not os.path.isdir(self.tests):
            sys.exit(f"no test files: put Paddle's test files in {self.tests} (see ../README.md) or set "
                     "PADDLE_SUITE_TESTS")
        support = os.path.join(self.here, "support")    # our helper modules the test files import, pytest.ini
        for name in os.listdir(support):
            shutil.copy(os.path.join(support, name), os.path.join(self.tests, name))
        files = a.files or sorted(f for f in os.listdir(self.tests) if f.startswith("test_") and f.endswith(".py"))
        modes = ["paddle", "ours"] if a.mode == "both" else a.mode.split(",")
        jobs = [(m, f) for m in modes for f in files]
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            list(ex.map(lambda mf: self.run_one(mf[0], mf[1], a.timeout), jobs))
        for m in modes:
            if m != "paddle":
                self.summarize(m)
