#!/usr/bin/env python3
"""Makes the markdown tables of bench/RESULTS.md from plaidml_cpu_bench's JSON lines.

  python3 bench/compare_cpu.py cpu_bench.json [--cold start1.json --warm start2.json] > table.md

cpu_bench.json: one full run (plaidml, oneDNN and OpenBLAS at each thread count, same process).
start1.json / start2.json: two `--compile-only` processes on one cache folder (bench/run_cpu.sh):
the first compiles cold, the second is the cached start. Standard library only. Lines that are
not JSON objects are ignored. Ratios are plaidml's throughput over the peer's (peer median time
over plaidml's): 1.0 is parity, 0.5 is half the peer's speed; in brackets the same from the best
(minimum) times.
"""
import argparse
import json
import sys

PEERS = [("onednn", "oneDNN"), ("openblas", "OpenBLAS")]


def load(path):
    lines = []
    try:
        with open(path, encoding="utf-8") as f:
            for raw in f:
                raw = raw.strip()
                if raw.startswith("{"):
                    try:
                        lines.append(json.loads(raw))
                    except json.JSONDecodeError:
                        pass
    except OSError as e:
        print(f"compare_cpu.py: {path}: {e.strerror}", file=sys.stderr)
    return lines


def kind(lines, name):
    return [line for line in lines if line.get("kind") == name]


def fmt(value, digits=2):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def ok(line):
    return line is not None and line.get("status") == "ok"


def cell_ms(line):
    if line is None:
        return "-"
    if line.get("status") == "n/a":
        return "n/a"
    if line.get("status") != "ok":
        return "error"
    return fmt(line.get("median_ms"), 3)


def cell_gflops(line):
    if not ok(line) or not line.get("flop"):
        return "-"
    return fmt(line.get("gflops"), 1)


def ratio(plaidml, peer):
    """Median over median, then best over best in brackets: on a busy machine the best runs are
    the ones least disturbed, so the two together show how far the noise reaches."""
    if not ok(plaidml) or not ok(peer) or not plaidml.get("median_ms") or not plaidml.get("min_ms"):
        return "-"
    return (fmt(peer["median_ms"] / plaidml["median_ms"], 2) + " (" +
            fmt(peer["min_ms"] / plaidml["min_ms"], 2) + ")")


def check_cell(row):
    """plaidml's own check (spot check and comparison with a peer), then any peer that failed."""
    words = []
    plaidml = row.get("plaidml")
    if plaidml is None:
        words.append("missing")
    elif plaidml.get("status") != "ok":
        words.append("FAILED: " + plaidml.get("error", "error")[:80])
    elif plaidml.get("check") != "ok":
        detail = plaidml.get("compare_failure") or plaidml.get("check_failure") or ""
        words.append("FAILED " + detail[:80])
    else:
        words.append("ok" + (" (= " + plaidml["compared_with"] + ")" if "compared_with" in plaidml
                             else ""))
    for impl, label in PEERS:
        line = row.get(impl)
        if line is not None and line.get("status") == "ok" and line.get("check") == "FAIL":
            words.append(label + " FAILED its check")
    return "; ".join(words)


# Other processes' average use of the cores while a row ran, above which its figures, and the
# 2-thread ones above all, measure the scheduler as much as the code.
BUSY = 0.2


def busy(row):
    values = [line["others_cores"] for line in row.values() if line.get("others_cores")
              is not None]
    return max(values) if values else None


def busy_cell(row):
    value = busy(row)
    if value is None:
        return "-"
    return fmt(value, 2) + (" (busy)" if value > BUSY else "")


def case_rows(lines):
    """(case, threads) -> {impl: line}, in the order the run produced them."""
    rows = {}
    for line in lines:
        if "kind" in line or "case" not in line:
            continue
        key = (line["case"], line.get("threads", 0))
        rows.setdefault(key, {})[line["impl"]] = line
    return rows


def throughput_table(lines):
    out = ["| case | thr | plaidml ms | GFLOP/s | oneDNN ms | GFLOP/s | OpenBLAS ms | GFLOP/s "
           "| vs oneDNN (best) | vs OpenBLAS (best) | check | others' cores |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for (case, threads), row in case_rows(lines).items():
        p = row.get("plaidml")
        cells = [f"`{case}`", str(threads), cell_ms(p), cell_gflops(p)]
        for impl, _ in PEERS:
            cells += [cell_ms(row.get(impl)), cell_gflops(row.get(impl))]
        cells += [ratio(p, row.get(impl)) for impl, _ in PEERS]
        cells += [check_cell(row), busy_cell(row)]
        out.append("| " + " | ".join(cells) + " |")
    noisy = sum(1 for row in case_rows(lines).values() if (busy(row) or 0) > BUSY)
    if noisy:
        out += ["", f"{noisy} rows ran while other processes used more than {BUSY} of a core "
                "(\"others' cores\", from /proc/stat less this process's own CPU time): their "
                "times are noisy, and at 2 threads on 2 cores a worker thread that loses its core "
                "stalls the whole run (oneDNN's OpenMP barrier waits whole scheduler ticks). "
                "Compare such rows with care; rerun on a quiet machine."]
    return out


def compile_table(lines, cold, warm):
    """plaidml's compile per program, cold and in a cached second process, beside oneDNN's
    primitive creation (creation plus weight reorder) at the first thread count."""
    first = {}
    for (case, threads), row in case_rows(lines).items():
        first.setdefault(case, row)
    cold_by = {line["case"]: line for line in kind(cold, "compile")}
    warm_by = {line["case"]: line for line in kind(warm, "compile")}
    out = ["| case | kernels | plaidml cold compile ms | ms per kernel "
           "| cached start (2nd process) ms | kernels generated / read from disk there "
           "| in the bench run ms | oneDNN primitive creation ms |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for case in dict.fromkeys(list(cold_by) + list(first)):
        row = first.get(case, {})
        c, w = cold_by.get(case, {}), warm_by.get(case, {})
        kernels = c.get("kernels_compiled")
        per_kernel = c["compile_ms"] / kernels if kernels and "compile_ms" in c else None
        cells = [f"`{case}`", fmt(kernels), fmt(c.get("compile_ms"), 1), fmt(per_kernel, 1),
                 fmt(w.get("compile_ms"), 1),
                 f"{fmt(w.get('kernels_compiled'))} / {fmt(w.get('kernel_disk_hits'))}",
                 fmt(row.get("plaidml", {}).get("compile_ms"), 1),
                 fmt(row.get("onednn", {}).get("compile_ms"), 1)]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for label, start in (("cold", cold), ("cached (second process)", warm)):
        wall = [line.get("wall_ms") for line in kind(start, "process")]
        for line in kind(start, "startup"):
            out.append(f"- {label} start: process wall time {fmt(wall[0] if wall else None)} ms; "
                       f"context {fmt(line.get('context_ms'), 1)} ms, {line.get('programs')} "
                       f"programs compiled in {fmt(line.get('compile_total_ms'), 1)} ms; the "
                       f"library counted {line.get('compiles')} compiles, "
                       f"{fmt(line.get('kernels_compiled'))} kernels generated, "
                       f"{fmt(line.get('disk_hits'))} read from the disk cache, "
                       f"{fmt(line.get('disk_writes'))} written to it")
    return out


def dispatch_table(lines):
    out = ["| threads | median µs | min µs | p90 µs | calls | compiles during | plan-cache hits "
           "| check |",
           "|---:|---:|---:|---:|---:|---:|---:|---|"]
    for line in kind(lines, "dispatch"):
        out.append("| " + " | ".join([
            str(line.get("threads")), fmt(line.get("median_us")), fmt(line.get("min_us")),
            fmt(line.get("p90_us")), fmt(line.get("calls")), fmt(line.get("compiles")),
            fmt(line.get("cache_hits")), line.get("check", line.get("error", "-"))]) + " |")
    return out


def run_summary(lines):
    out = []
    for line in kind(lines, "run"):
        out.append(f"- plaidml {line.get('plaidml_version')} on {line.get('device')}: "
                   f"{line.get('cpu')}, {line.get('cores')} cores; threads {line.get('threads')}")
        for peer in line.get("peers", []):
            state = ("absent: " + peer["absent"]) if "absent" in peer else \
                f"{peer.get('version')} ({peer.get('detail')})"
            out.append(f"- {peer.get('impl')}: {state}")
        out.append(f"- budget per case and implementation: {line.get('warmup')} warm-up runs, "
                   f"{line.get('min_repeat')} to {line.get('repeat')} timed runs, "
                   f"{line.get('max_seconds')} s; load average at start "
                   f"{', '.join(fmt(v) for v in line.get('loadavg') or [])}")
        if line.get("openblas_coretype"):
            was = line.get("openblas_coretype_was")
            out.append(f"- OPENBLAS_CORETYPE={line['openblas_coretype']}"
                       + (f" (set by the bench; it was {was})" if was else " (kept as set)"))
    for line in kind(lines, "end"):
        out.append(f"- run time {fmt(line.get('elapsed_s'), 0)} s; other processes used "
                   f"{fmt(line.get('others_cores'))} cores on average meanwhile")
    out += self_use(lines)
    return out


def self_use(lines):
    """How many cores the bench itself got, averaged over the rows long enough to tell: below
    the thread count, the implementations were waiting for a core, not computing."""
    by_threads = {}
    for line in lines:
        if "kind" not in line and line.get("self_cores") is not None:
            by_threads.setdefault(line.get("threads", 0), []).append(line["self_cores"])
    return [f"- at {threads} thread(s) the bench's process got {fmt(sum(v) / len(v))} cores on "
            f"average ({len(v)} rows long enough to tell)"
            for threads, v in sorted(by_threads.items())]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench")
    parser.add_argument("--cold", help="--compile-only JSON of the first process")
    parser.add_argument("--warm", help="--compile-only JSON of the second process")
    args = parser.parse_args()
    lines = load(args.bench)
    cold = load(args.cold) if args.cold else []
    warm = load(args.warm) if args.warm else []
    text = run_summary(lines) + ["", "#### Throughput (median of the timed runs)", ""]
    text += throughput_table(lines)
    text += ["", "#### Compile and start-up", ""] + compile_table(lines, cold, warm)
    text += ["", "#### Dispatch overhead (4-element add, plan-cache hit)", ""]
    text += dispatch_table(lines)
    print("\n".join(text))


if __name__ == "__main__":
    main()
