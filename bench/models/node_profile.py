"""Layer by layer beside onnxruntime: each of plaidml's kernel launches in a model, matched to the
onnxruntime node that computes the same ONNX output, both timed in one process (the fastest of
--runs for each, or with --stat median the median), sorted by how much longer ours takes.

    python bench/models/node_profile.py MODEL.onnx --threads 1 --runs 20 --top 25
    python bench/models/node_profile.py bert.onnx --dim sequence=128

A kernel is matched through the ONNX node names its profile entry lists (`ops`); onnxruntime
names a fused node after its output (`r145_nchwc`), whose producer in the file is the node
looked for, and other nodes by their own names. Inputs are random (float inputs normal,
integer inputs such as token ids and masks 1, the file's fixed shapes, symbolic dims 1 unless
--dim gives them).
onnxruntime's per-node times include its profiler's own cost: compare the big layers, not the
totals to the microsecond. Shows where a model's gap is: which layers, how many microseconds.
"""
import argparse
import collections
import json
import re

import numpy as np
import onnx
import onnxruntime as ort
import plaidml
import plaidml.onnx


def random_feeds(model, symbolic):
    initializers = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(0)
    feeds = {}
    for i in model.graph.input:
        if i.name in initializers:
            continue
        dims = [d.dim_value or symbolic.get(d.dim_param, 1) for d in i.type.tensor_type.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(i.type.tensor_type.elem_type)
        if np.issubdtype(dtype, np.integer):  # token ids, masks: 1 is valid for both
            feeds[i.name] = np.ones(dims, dtype)
        else:
            feeds[i.name] = rng.standard_normal(dims).astype(dtype)
    return feeds


def ours(path, feeds, threads, runs, stat):
    """[(ONNX node names, us by `stat`, flops, kernel name)] per launch, in launch order."""
    program = plaidml.onnx.load(path)
    ctx = plaidml.Context(device="cpu:0", num_threads=threads)
    for _ in range(3):
        ctx.run(program, feeds)
    ctx.set_profiling(True)
    for _ in range(runs):
        ctx.run(program, feeds)
    events = json.loads(ctx.profile_trace())["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel" and "dur" in e]
    per_run = len(kernels) // runs
    launches = []
    for i in range(per_run):
        fastest = stat(kernels[r * per_run + i]["dur"] for r in range(runs))
        args = kernels[i].get("args", {})
        nodes = set(re.findall(r"(\S+) \(", args.get("ops", "")))
        launches.append((nodes, fastest, args.get("flops", 0), kernels[i]["name"]))
    return launches


def theirs(path, feeds, threads, runs, stat):
    """{onnxruntime node name: us by `stat`}."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.log_severity_level = 3
    options.profile_file_prefix = "/tmp/node_profile_ort"
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    for _ in range(runs + 3):
        session.run(None, feeds)
    with open(session.end_profiling()) as f:
        events = json.load(f)
    durations = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            durations[e["name"][:-len("_kernel_time")]].append(e["dur"])
    return {name: stat(d[-runs:]) for name, d in durations.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--stat", choices=["fastest", "median"], default="fastest",
                   help="each launch's time over the runs: the fastest (the kernel's own speed) "
                        "or the median (what a run typically pays, cache misses included)")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE",
                   help="size of a symbolic input dimension (default 1), e.g. sequence=128")
    args = p.parse_args()
    symbolic = {k: int(v) for k, v in (d.split("=") for d in args.dim)}
    model = onnx.load(args.model)
    producer = {out: node.name for node in model.graph.node for out in node.output}
    feeds = random_feeds(model, symbolic)
    stat = min if args.stat == "fastest" else lambda values: float(np.median(list(values)))
    launches = ours(args.model, feeds, args.threads, args.runs, stat)
    nodes = theirs(args.model, feeds, args.threads, args.runs, stat)
    print("plaidml: %.2f ms in %d launches; onnxruntime: %.2f ms in %d nodes (sums of %s)" %
          (sum(l[1] for l in launches) / 1e3, len(launches), sum(nodes.values()) / 1e3,
           len(nodes), args.stat))
    used, rows = set(), []
    for name, us in nodes.items():
        stripped = re.sub(r"_nchwc$", "", name)
        wanted = producer.get(stripped, stripped)  # an output's name, or the node's own
        match = [i for i, l in enumerate(launches) if wanted in l[0] and i not in used]
        if match:
            used.add(match[0])
            node_set, ours_us, flops, kernel = launches[match[0]]
            rows.append((ours_us - us, ours_us, us, flops, kernel, name))
    print("| onnxruntime node | plaidml kernel | ours us | ort us | difference us | ours GFLOP/s |")
    print("|---|---|---|---|---|---|")
    for diff, ours_us, us, flops, kernel, name in sorted(rows, key=lambda r: -r[0])[:args.top]:
        print("| %s | %s | %.0f | %.0f | %+.0f | %.1f |" %
              (name, kernel, ours_us, us, diff, flops / ours_us / 1e3 if ours_us else 0))
    unmatched = sum(l[1] for i, l in enumerate(launches) if i not in used)
    print("plaidml launches without an onnxruntime node: %.0f us" % unmatched)


if __name__ == "__main__":
    main()
