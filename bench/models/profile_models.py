"""Where exported models spend their time on the CPU: plaidml's per-kernel profile and
onnxruntime's per-node profile (aggregated by op type) of the same file, one after the other.
Runs where export_models.py's manifest is (the GPU machine), through its script step:

    OUT=$OUT STEPS=script SCRIPT=bench/models/profile_models.py \\
        PROF_RUNS="bert_base:1,resnet50:2" bash scripts/gpu/device-run.sh

PROF_RUNS: model:threads pairs, or model:threads:device for a plaidml device other than cpu:0
(PROF_RUNS="gpt2:1:opencl:0": our kernels on the GPU, onnxruntime's CPU profile skipped).
Prints both tables; writes our Chrome trace and onnxruntime's profile to $OUT
(trace_<model>_t<threads>.json, ort_<model>_t<threads>.json). onnxruntime's per-op sums include
its profiling's own cost, so compare shares, not totals.
"""
import collections
import json
import os
import sys

import numpy as np
import onnxruntime as ort
import plaidml
import plaidml.onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_inputs import import_dims, make_inputs  # noqa: E402

MODELS = os.environ.get("ONNX_MODEL_DIR", "/tmp/plaidml-onnx-models")
OUT = os.environ.get("OUT", "/tmp")
RUNS = 10


def entry_of(manifest, name):
    for e in manifest["models"]:
        if e["model"] == name and e.get("exporter", "torchscript") == "torchscript":
            return e
    sys.exit("no torchscript export of %s in %s" % (name, MODELS))


def profile_ours(name, path, entry, feeds, threads, device):
    program = plaidml.onnx.load(path, **import_dims(entry, 1, 128))
    ctx = plaidml.Context(device=device, num_threads=threads)
    for _ in range(3):
        ctx.run(program, feeds)
    ctx.set_profiling(True)
    for _ in range(RUNS):
        ctx.run(program, feeds)
    print("=== plaidml %s on %s, %d threads, %d runs" % (name, device, threads, RUNS))
    print(ctx.profile_summary(30), flush=True)
    tag = "" if device == "cpu:0" else "_" + device.replace(":", "")
    with open(os.path.join(OUT, "trace_%s_t%d%s.json" % (name, threads, tag)), "w") as f:
        f.write(ctx.profile_trace())


def profile_ort(name, path, feeds, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = "/tmp/ortprof_%s_%d" % (name, threads)
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    for _ in range(RUNS + 3):
        session.run(None, feeds)
    with open(session.end_profiling()) as f:
        events = json.load(f)
    with open(os.path.join(OUT, "ort_%s_t%d.json" % (name, threads)), "w") as f:
        json.dump(events, f)
    by_op, nodes = collections.defaultdict(float), collections.Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            by_op[e["args"]["op_name"]] += e["dur"]
            nodes[e["args"]["op_name"]] += 1
    runs = RUNS + 3
    print("=== onnxruntime %s, %d threads: us per run by op type (total %.0f)" %
          (name, threads, sum(by_op.values()) / runs))
    for op, us in sorted(by_op.items(), key=lambda kv: -kv[1])[:15]:
        print("  %-28s %9.0f  (%d nodes)" % (op, us / runs, nodes[op] // runs), flush=True)


def main():
    with open(os.path.join(MODELS, "manifest.json")) as f:
        manifest = json.load(f)
    for item in os.environ.get("PROF_RUNS", "bert_base:1").split(","):
        name, threads, *device = item.split(":")
        device = ":".join(device) or "cpu:0"
        entry = entry_of(manifest, name)
        path = os.path.join(MODELS, entry["file"])
        feeds = make_inputs(entry, 1, 128, np.random.default_rng(0))
        profile_ours(name, path, entry, feeds, int(threads), device)
        if device == "cpu:0":
            profile_ort(name, path, feeds, int(threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
