#!/usr/bin/env python3
"""Joins bench/torch_gpu.py and plaidml_gpu_bench JSON lines into one markdown table.

  python3 bench/compare_gpu.py torch_gpu.json plaidml_opencl.json [plaidml_vulkan.json ...] \
      > gpu_table.md

One group of columns per plaidml file (one file per device, from the same run as torch's), and
one for CLBlast's file (bench/clblast_gpu.cc, its matmul cases) where it is given.
Standard library only. Lines that are not JSON objects are ignored, so a log with other output
mixed in still works; a missing file or case shows as "-". The ratio is plaidml's GFLOP/s over
torch's: plaidml's share of torch's throughput. torch's main figures are CUDA-event device time;
its wall-clock median (plaidml's way of timing, launch and synchronisation included) is shown
beside them.
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


def impl_of(lines):
    """'plaidml', or the peer a file holds (bench/clblast_gpu.cc writes impl 'clblast')."""
    for line in lines.values():
        if line.get("impl") == "clblast":
            return "CLBlast on the same OpenCL driver,"
    return "plaidml"


def device_label(lines, fallback):
    for line in lines.values():
        if line.get("device"):
            return line["device"]
    return fallback


def table(torch, runs):
    """runs: [(path, cases)] of plaidml_gpu_bench output, one per plaidml device."""
    names = list(torch)
    for _, cases in runs:
        names += [n for n in cases if n not in names]
    labels = [device_label(cases, path) for path, cases in runs]
    out = [f"torch: {device_of(torch)} (TF32 off)"]
    out += [f"{impl_of(cases)} {label}: {device_of(cases)}"
            for label, (_, cases) in zip(labels, runs)]
    header = "| case | torch median ms | torch GFLOP/s | torch wall median ms |"
    rule = "|---|---:|---:|---:|"
    for label in labels:
        header += (f" {label} median ms | {label} GFLOP/s | {label} / torch speed | "
                   f"{label} compile ms |")
        rule += "---:|---:|---:|---:|"
    header += " status |"
    rule += "---|"
    out += ["", header, rule]
    for name in names:
        t = torch.get(name)
        tg = figure(t, "gflops")
        row = (f"| {name} | {fmt(figure(t, 'median_ms'), 3)} | {fmt(tg, 1)} | "
               f"{fmt(figure(t, 'wall_median_ms'), 3)} |")
        statuses = [f"torch {status_of(t)}"]
        for label, (_, cases) in zip(labels, runs):
            p = cases.get(name)
            pg = figure(p, "gflops")
            compile_ms = p.get("compile_ms") if p else None
            row += (f" {fmt(figure(p, 'median_ms'), 3)} | {fmt(pg, 1)} | "
                    f"{fmt(ratio(pg, tg), 3)} | {fmt(compile_ms, 1)} |")
            statuses.append(f"{label} {status_of(p)}")
        out.append(row + " " + ", ".join(statuses) + " |")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    runs = [(path, load(path)) for path in argv[2:]]
    sys.stdout.write(table(load(argv[1]), runs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
