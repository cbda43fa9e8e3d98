"""Run Paddle legacy_test API test files twice (real Paddle, dy2st as `paddle`), tabulate.

usage: python run_harness.py [--mode both|paddle|ours] [--jobs N] [files...]
Results: results/<mode>/<file>.xml (junit), summary in results/table.md and results/summary.json.
"""
import argparse
import shutil
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.environ.get("PADDLE_SUITE_TESTS", os.path.join(HERE, "tests"))   # Paddle's files (not in git)
PY = sys.executable
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))   # the dy2st checkout
PLUGINS = os.path.abspath(os.path.join(HERE, ".."))            # paddle_shim.py


def run_one(mode, fname, timeout):
    out_dir = os.path.join(HERE, "results", mode)
    os.makedirs(out_dir, exist_ok=True)
    xml = os.path.join(out_dir, fname.replace(".py", ".xml"))
    log = os.path.join(out_dir, fname.replace(".py", ".log"))
    if os.path.exists(xml):
        os.remove(xml)      # a crashed run leaves none; a stale one must not be read as this run's
    work = os.path.join(HERE, "work", mode, fname[:-3])
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([TESTS, PLUGINS] +
                                        ([os.environ.get("DY2ST_ROOT", REPO)] if mode.startswith("ours") else []))
    
    env["FLAGS_use_stride_kernel"] = "0"
    env["CUDA_VISIBLE_DEVICES"] = ""
    env["OMP_NUM_THREADS"] = "1"
    cmd = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.path.join(TESTS, "pytest.ini"),
           "--rootdir", TESTS, "--junitxml", xml, "-o", "junit_family=xunit1", os.path.join(TESTS, fname)]
    if mode.startswith("ours"):
        cmd[3:3] = ["-p", "paddle_shim"]
    try:
        p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
        text = p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        text = "TIMEOUT\n" + (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else "TIMEOUT"
        if os.path.exists(xml):
            os.remove(xml)
    with open(log, "w") as f:
        f.write(text)
    if not os.path.exists(xml):
        # the process died (Paddle segfaults on some tests): run the tests one by one, merge their results
        coll = subprocess.run(cmd[:-1] + ["--collect-only", cmd[-1]], cwd=work, env=env,
                              capture_output=True, text=True, timeout=timeout)
        ids = [l.strip() for l in coll.stdout.splitlines() if "::" in l]
        suite = ET.Element("testsuite")
        for i, tid in enumerate(ids):
            part = xml + f".part{i}"
            one = [part if c == xml else c for c in cmd[:-1]] + [os.path.join(TESTS, tid)]
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
    return fname


def first_error_line(node):
    for tag in ("failure", "error"):
        el = node.find(tag)
        if el is not None:
            msg = (el.get("message") or "").strip()
            body = el.text or ""
            # the last "E   " line block usually holds the exception
            elines = [l[1:].strip() for l in body.splitlines() if l.startswith("E ")]
            exc = next((l for l in elines if re.match(r"^[\w.]+(Error|Exception|Interrupt|Exit)\b", l)), None)
            line = exc or msg.splitlines()[0] if (exc or msg) else (elines[0] if elines else tag)
            return line[:300]
    return None


def parse(mode, fname):
    xml = os.path.join(HERE, "results", mode, fname.replace(".py", ".xml"))
    res = {}
    if not os.path.exists(xml):
        log = open(os.path.join(HERE, "results", mode, fname.replace(".py", ".log"))).read()
        return None, log.strip().splitlines()[-1][:300] if log.strip() else "no output"
    root = ET.parse(xml).getroot()
    for tc in root.iter("testcase"):
        name = f"{tc.get('classname')}::{tc.get('name')}"
        if tc.find("skipped") is not None:
            res[name] = ("skip", None)
        else:
            err = first_error_line(tc)
            res[name] = ("pass", None) if err is None else ("fail", err)
    return res, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="both")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if not os.path.isdir(TESTS):
        sys.exit(f"no test files: put Paddle's test files in {TESTS} (see ../README.md) or set PADDLE_SUITE_TESTS")
    support = os.path.join(HERE, "support")      # our helper modules the test files import, and pytest.ini
    for name in os.listdir(support):
        shutil.copy(os.path.join(support, name), os.path.join(TESTS, name))
    files = a.files or sorted(f for f in os.listdir(TESTS) if f.startswith("test_") and f.endswith(".py"))
    modes = ["paddle", "ours"] if a.mode == "both" else [a.mode]
    jobs = [(m, f) for m in modes for f in files]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        list(ex.map(lambda mf: run_one(mf[0], mf[1], a.timeout), jobs))
    summarize()


def summarize():
    ours_mode = os.environ.get("OURS_MODE", "ours")
    all_files = sorted(f[:-4] + ".py" for f in os.listdir(os.path.join(HERE, "results", ours_mode)) if f.endswith(".log"))
    rows, groups, details = [], defaultdict(list), {}
    tot_p = tot_o = tot_all = 0
    for f in all_files:
        if not os.path.exists(os.path.join(HERE, "results", "paddle", f.replace(".py", ".log"))):
            continue
        pres, perr = parse("paddle", f)
        ores, oerr = parse(ours_mode, f)
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
        tot_all += len(pres); tot_p += len(p_pass); tot_o += len(o_pass)
        details[f] = {"paddle": pres, "ours": ores or {}, "ours_file_error": oerr}
    table = "table.md" if ours_mode == "ours" else f"table_{ours_mode}.md"
    with open(os.path.join(HERE, "results", table), "w") as out:
        out.write("| file | tests | Paddle passes | we pass |\n|---|---|---|---|\n")
        for r in rows:
            out.write(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |\n")
        out.write(f"| **total ({len(rows)} files)** | {tot_all} | {tot_p} | {tot_o} |\n\n")
        out.write("## our failures (of tests Paddle passes), grouped by first error line\n")
        for msg, tests in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            out.write(f"\n### {len(tests)}: {msg}\n")
            for t in tests[:3]:
                out.write(f"- {t}\n")
    json.dump(details, open(os.path.join(HERE, "results", table.replace(".md", ".json").replace("table", "summary")), "w"),
              indent=1, default=str)
    print(open(os.path.join(HERE, "results", table)).read())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--summary":
        summarize()
    else:
        main()
