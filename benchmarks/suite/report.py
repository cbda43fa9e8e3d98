"""The suite's terminal tables and the evaluation of issue 7's and issue 17's targets."""
from __future__ import annotations

from . import spec

COLUMNS = ["numpy.floor", "ours.eager", "ours.static", "paddle.eager", "paddle.static", "torch.eager", "torch.script"]
HEADERS = {"numpy.floor": "numpy floor", "ours.eager": "ours eager", "ours.static": "ours to_static",
           "paddle.eager": "Paddle eager", "paddle.static": "Paddle to_static", "torch.eager": "torch eager",
           "torch.script": "torch.jit.script"}
FIRST_CALL = ["ours.static", "paddle.static", "torch.script"]
KERNEL_BOUND_NOTE = ("k = Paddle eager is faster than the numpy floor here, so the gap is in the BLAS/convolution "
                     "kernels (the exception issue 7 allows)")


def fmt_us(ns):
    us = ns / 1e3
    if us < 10:
        return f"{us:.2f}"
    if us < 1000:
        return f"{us:.1f}"
    return f"{us:.0f}"


def cell(col):
    if col is None:
        return "-"
    if col["status"] != "ok":
        return col["status"]
    if col.get("median_ns") is None:
        return "ok"
    r = col.get("ratio_floor")
    return fmt_us(col["median_ns"]) + (f" ({r:.2f}x)" if r is not None else "")


def _table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def main_table(results):
    header = ["workload (µs/call, x floor)"] + [HEADERS[c] for c in COLUMNS]
    rows = [[name] + [cell(w["columns"].get(c)) for c in COLUMNS] for name, w in results["workloads"].items()]
    return _table(header, rows)


def first_call_table(results):
    header = ["first call (ms)"] + [HEADERS[c] for c in FIRST_CALL] + ["ours / Paddle"]
    rows = []
    for name, w in results["workloads"].items():
        vals = []
        for c in FIRST_CALL:
            col = w["columns"].get(c)
            v = col.get("first_call_s") if col and col["status"] in ("ok", "mismatch") else None
            vals.append(f"{v * 1e3:.1f}" if v is not None else (col["status"] if col else "-"))
        r = w.get("ratios", {}).get("first_call_ours_vs_paddle")
        rows.append([name] + vals + [f"{r:.3f}" if r is not None else "-"])
    return _table(header, rows)


def memory_lines(mem):
    if not mem:
        return "peak memory: not measured"
    parts = []
    for side in ("floor", "eager", "static"):
        m = mem.get(side, {})
        parts.append(f"{side} {m['peak_bytes'] / 2**20:.1f} MiB" if "peak_bytes" in m else f"{side} error")
    ratio = mem.get("static_vs_eager")
    tail = f"; converted / eager = {ratio:.2f}" if ratio is not None else ""
    return f"peak memory, LeNet inference batch {mem.get('batch')} (tracemalloc, one call): " + ", ".join(parts) + tail


def evaluate_targets(results):
    """Issue 7's and issue 17's targets as rows {target, workload, value, limit, met, note}; value None =
    not measurable."""
    rows = []
    wl = results["workloads"]

    def add(target, name, value, limit, strict=False, kernel_bound=False):
        met = None if value is None else (value < limit if strict else value <= limit)
        rows.append({"target": target, "workload": name, "value": value,
                     "limit": ("< " if strict else "<= ") + f"{limit:.4g}", "met": met,
                     "kernel_bound": bool(kernel_bound and met is False)})

    for name, w in wl.items():
        r = w.get("ratios", {})
        cols = w["columns"]
        if w["kind"] == "infer":
            add("converted / numpy floor <= 1.25 (inference)", name, cols["ours.static"].get("ratio_floor")
                if cols["ours.static"]["status"] == "ok" else None, 1.25)
        twice = name in ("control_flow", "lstm")
        add("converted / our eager < 1 (<= 0.5 control flow, LSTM)", name, r.get("ours_static_vs_eager"),
            0.5 if twice else 1.0, strict=not twice)
        add("converted / Paddle to_static < 1", name, r.get("ours_static_vs_paddle_static"), 1.0, strict=True)
        pe = cols.get("paddle.eager", {})
        kb = pe.get("status") == "ok" and (pe.get("ratio_floor") or 9) < 1.0
        add("converted / Paddle eager < 1", name, r.get("ours_static_vs_paddle_eager"), 1.0, strict=True,
            kernel_bound=kb)
        add("first call ours / Paddle <= 1/3", name, r.get("first_call_ours_vs_paddle"), 1 / 3)
        if w["kind"] == "train":
            add("train step converted / eager <= 1", name, r.get("ours_static_vs_eager"), 1.0)
    mem = results.get("memory") or {}
    add("peak memory converted / eager <= 1", "lenet_b256", mem.get("static_vs_eager"), 1.0)
    # issue 17 (performance, round two): tighter floors and PyTorch; faster than torch.jit.script is asked
    # on at least four of the six inference workloads, so a single miss there is not a failed target
    for name, w in wl.items():
        r = w.get("ratios", {})
        st = w["columns"]["ours.static"]
        floor = st.get("ratio_floor") if st["status"] == "ok" else None
        if w["kind"] == "infer":
            add("issue 17: converted / numpy floor <= 1.15", name, floor, 1.15)
            add("issue 17: converted / torch.jit.script < 1 (4 of 6)", name, r.get("ours_static_vs_torch_script"),
                1.0, strict=True)
        else:
            add("issue 17: train step converted / numpy floor <= 1.2", name, floor, 1.2)
            add("issue 17: train step converted / torch eager < 1", name, r.get("ours_static_vs_torch_eager"),
                1.0, strict=True)
    return rows


def torch_script_count(rows):
    """(inference workloads where converted beat torch.jit.script, workloads measured)."""
    rs = [r for r in rows if r["target"].startswith("issue 17: converted / torch.jit.script")]
    return sum(1 for r in rs if r["met"]), sum(1 for r in rs if r["met"] is not None)


def targets_table(rows):
    targets = list(dict.fromkeys(r["target"] for r in rows))
    names = list(dict.fromkeys(r["workload"] for r in rows))
    by = {(r["target"], r["workload"]): r for r in rows}
    header = ["target (ratio, limit)"] + names
    out = []
    for t in targets:
        line = [t]
        for n in names:
            r = by.get((t, n))
            if r is None:
                line.append("")
            elif r["value"] is None:
                line.append("n/a")
            else:
                mark = "met" if r["met"] else ("MISS(k)" if r["kernel_bound"] else "MISSED")
                line.append(f"{r['value']:.2f} {mark}")
        out.append(line)
    met = sum(1 for r in rows if r["met"])
    missed = sum(1 for r in rows if r["met"] is False)
    kb = sum(1 for r in rows if r["kernel_bound"])
    na = sum(1 for r in rows if r["met"] is None)
    summary = f"targets: {met} met, {missed} missed ({kb} of them kernel-bound, k), {na} not measurable"
    won, measured = torch_script_count(rows)
    if measured:
        summary += (f"; issue 17: converted faster than torch.jit.script on {won} of {measured} inference "
                    f"workloads (asked: 4 of 6)")
    return _table(header, out) + "\n" + summary + ("\n" + KERNEL_BOUND_NOTE if kb else "")


def workload_titles():
    return "\n".join(f"  {n:<13} {w['title']} ({'inference, eval + no_grad' if w['kind'] == 'infer' else 'fwd+bwd+SGD'})"
                     for n, w in spec.WORKLOADS.items())
