#!/usr/bin/env python3
"""Joins plaidml_gpu_bench and bench/torch_gpu.py JSON lines into one markdown table.

  python3 bench/compare_gpu.py plaidml_gpu.json torch_gpu.json > gpu_table.md

Standard library only. Lines that are not JSON objects are ignored, so a log with other output
mixed in still works; a missing file or case shows as "-". Ratios are plaidml / torch: for time,
above 1 means plaidml is slower; for GFLOP/s ("speed"), the share of torch's throughput. torch's
main figures are CUDA-event device time; its wall-clock median (plaidml's way of timing, launch
and synchronisation included) is shown beside them.
"""
import json
import sys


def load(path):
    """case name -> JSON object, from a file of JSON lines (missing file: empty)."""
    cases = {}
    try:
        with open(path, encoding="utf-8") as f:
            for raw in f:
                raw = raw.strip()
                if not raw.startswith("{"):
                    continue
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    continue
                if isinstance(line, dict) and "case" in line:
                    cases[line["case"]] = line
    except OSError as e:
        print(f"compare_gpu.py: {path}: {e.strerror}", file=sys.stderr)
    return cases


def fmt(value, digits=2):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def ok(line):
    return line is not None and line.get("status") == "ok"


def figure(line, key):
    return line.get(key) if ok(line) else None


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def status_of(line):
    if line is None:
        return "missing"
    if not ok(line):
        return "error: " + str(line.get("error", "?"))[:120].replace("|", "/")
    return "check " + str(line.get("check", "?"))


def device_of(lines):
    for line in lines.values():
        if line.get("device_name") or line.get("device"):
            return f"{line.get('device_name', '')} ({line.get('device', '')})".strip()
    return "-"


def table(plaidml, torch):
    names = list(plaidml) + [n for n in torch if n not in plaidml]
    out = [
        f"plaidml: {device_of(plaidml)}; torch: {device_of(torch)} (TF32 off)",
        "",
        "| case | plaidml median ms | torch median ms | time ratio | plaidml GFLOP/s | "
        "torch GFLOP/s | speed ratio | plaidml compile ms | torch first call ms | "
        "torch wall median ms | plaidml | torch |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name in names:
        p, t = plaidml.get(name), torch.get(name)
        pm, tm = figure(p, "median_ms"), figure(t, "median_ms")
        pg, tg = figure(p, "gflops"), figure(t, "gflops")
        pc = p.get("compile_ms") if p else None
        tc = figure(t, "compile_ms")
        out.append(
            f"| {name} | {fmt(pm, 3)} | {fmt(tm, 3)} | {fmt(ratio(pm, tm))} | {fmt(pg, 1)} | "
            f"{fmt(tg, 1)} | {fmt(ratio(pg, tg), 3)} | {fmt(pc, 1)} | {fmt(tc, 1)} | "
            f"{fmt(figure(t, 'wall_median_ms'), 3)} | "
            f"{status_of(p)} | {status_of(t)} |")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(table(load(argv[1]), load(argv[2])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
