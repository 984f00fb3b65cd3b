"""Whole-model benchmark: plaidml beside onnxruntime (CPU execution provider, the same thread
count) on the same ONNX files, each measured in its own fresh process so that start-up and
memory are the process's own.

    python bench/models/bench_models.py --models /tmp/models --threads 1,2 --batch 1,8 \
        --device cpu:0 --json out.json --markdown out.md
    python bench/models/bench_models.py --model light_resnet50=<path/to/light_resnet50.onnx>

--models reads export_models.py's manifest (inputs, symbolic batch and sequence, token ranges);
--model NAME=PATH adds a file whose input dims are fixed or named batch/sequence. Per model,
thread count and batch, both runtimes report:
  - cold start: a new process with an empty kernel cache: import (or session creation) and the
    first run, which compiles;
  - warm start: a second new process on the same cache folder: import and compile (ready to
    run), then the first run done; it must generate no code (plaidml's kernels_compiled == 0 is
    checked and reported); the import comes from the import cache and the compile from the
    plan entries (plan_disk_hits is reported);
  - latency: the median of --runs timed runs after --warmup untimed ones (inputs and outputs are
    copied between numpy and the runtime in both, as an application would), pooled over
    --rounds: each round a new warm plaidml process and a new onnxruntime process, one after
    the other, so that both meet the same machine (a shared VM's speed drifts by 20 % over
    seconds; one process each would compare whichever was luckier);
  - throughput: samples per second at that batch;
  - peak memory: the process's resident high-water mark (VmHWM), import to the last run (the
    largest of the rounds); the warm start figures are the rounds' medians.
The ratio columns are ours / onnxruntime's (below 1.0: plaidml is faster or smaller).
Beside a GPU device, --torch adds PyTorch eager on CUDA, timed like the others with the inputs
from numpy and the outputs back to numpy in every run (the ratio to torch), and with both left
on the device (its on-device column: on the H200, GPT-2's outputs, 25.7 MB of logits and the
cache tensors, took torch 1.7 ms a run to bring to the host).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from model_inputs import import_dims, make_inputs

HERE = os.path.dirname(os.path.abspath(__file__))


def vm_hwm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def make_feeds(spec, batch, seq, seed=0):
    return make_inputs(spec, batch, seq, np.random.default_rng(seed))


def spec_of_file(path):
    """Inputs of an ONNX file: fixed dims as numbers, a symbolic first dim as batch, a second
    symbolic one as sequence."""
    import onnx
    model = onnx.load(path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    inputs = []
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        t = inp.type.tensor_type
        dims = []
        for axis, d in enumerate(t.shape.dim):
            dims.append(d.dim_value if d.dim_value else ("batch" if axis == 0 else "sequence"))
        dtype = {1: "float32", 7: "int64"}[t.elem_type]
        inputs.append({"name": inp.name, "dims": dims, "dtype": dtype})
    return {"inputs": inputs}


def timed_runs(run, warmup, runs):
    for _ in range(warmup):
        run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def child_plaidml(args, spec, feeds):
    import plaidml
    import plaidml.onnx
    start = time.perf_counter()
    dims = import_dims(spec, args.batch, args.sequence)
    program = plaidml.onnx.load(args.path, **dims)
    imported = time.perf_counter() - start
    ctx = plaidml.Context(device=args.device, num_threads=args.threads, cache_dir=args.cache)
    shapes = {k: (list(v.shape), v.dtype) for k, v in feeds.items()}
    ctx.compile(program, shapes)
    compiled = time.perf_counter() - start
    ctx.run(program, feeds)
    ready = time.perf_counter() - start
    stats = ctx.stats()
    times = timed_runs(lambda: ctx.run(program, feeds), args.warmup, args.runs)
    memory = ctx.memory(program, shapes)
    return {"import_s": imported, "compiled_s": compiled, "ready_s": ready, "times_s": times,
            "kernels_compiled": stats["kernels_compiled"], "disk_hits": stats["disk_hits"],
            "plan_disk_hits": stats["plan_disk_hits"],
            "planned_peak_bytes": memory["peak_bytes"], "arena_bytes": memory["arena_bytes"],
            "rss_peak_bytes": vm_hwm_bytes()}


def child_ort(args, spec, feeds):
    import onnxruntime as ort
    start = time.perf_counter()
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    providers = [p for p in args.ort_providers.split(",") if p]
    session = ort.InferenceSession(args.path, options, providers=providers)
    session.run(None, feeds)
    ready = time.perf_counter() - start
    times = timed_runs(lambda: session.run(None, feeds), args.warmup, args.runs)
    return {"ready_s": ready, "times_s": times,
            "provider": session.get_providers()[0], "rss_peak_bytes": vm_hwm_bytes()}


def host_copies(outputs):
    """Every tensor of a model's outputs (a tensor, or tuples, lists and dicts of them) copied to
    host memory as numpy arrays."""
    if hasattr(outputs, "cpu"):
        return outputs.cpu().numpy()
    if isinstance(outputs, dict) or hasattr(outputs, "values"):
        return [host_copies(v) for v in outputs.values()]
    if isinstance(outputs, (list, tuple)):
        return [host_copies(v) for v in outputs]
    return outputs


def child_torch(args, spec, feeds):
    """PyTorch eager on CUDA, TF32 off, the same architecture built by export_models.py (the
    same seed, so the same random weights as the exported file). Timed twice: with the inputs
    copied from numpy and the outputs back to numpy in each run, the work plaidml's and
    onnxruntime's runs do (times_s, the figure compared), and with both left on the device
    (device_times_s)."""
    import torch
    sys.path.insert(0, HERE)
    import export_models
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(export_models.SEED)
    start = time.perf_counter()
    model = export_models.MODELS[args.name](args.name)[0].cuda().eval()
    host = [feeds[i["name"]] for i in spec["inputs"]]
    inputs = [torch.from_numpy(x).cuda() for x in host]

    def run_host():
        with torch.no_grad():
            host_copies(model(*[torch.from_numpy(x).cuda() for x in host]))

    def run_device():
        with torch.no_grad():
            model(*inputs)
        torch.cuda.synchronize()
    run_host()
    ready = time.perf_counter() - start
    times = timed_runs(run_host, args.warmup, args.runs)
    device_times = timed_runs(run_device, args.warmup, args.runs)
    return {"ready_s": ready, "times_s": times, "device_times_s": device_times,
            "provider": "torch-cuda", "rss_peak_bytes": vm_hwm_bytes(),
            "cuda_peak_bytes": int(torch.cuda.max_memory_allocated())}


def child_main(args):
    spec = json.loads(args.spec)
    feeds = make_feeds(spec, args.batch, args.sequence)
    child = {"plaidml": child_plaidml, "ort": child_ort, "torch": child_torch}[args.child]
    result = child(args, spec, feeds)
    print("RESULT " + json.dumps(result))
    return 0


def run_child(args, which, name, path, spec, threads, batch, cache, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", which, "--path", path,
           "--spec", json.dumps(spec), "--threads", str(threads), "--batch", str(batch),
           "--sequence", str(args.sequence), "--device", args.device, "--cache", cache,
           "--warmup", str(args.warmup), "--runs", str(args.runs),
           "--ort-providers", args.ort_providers, "--name", name]
    # The import cache (plaidml.onnx.load) uses the folder contexts use by default: the same
    # fresh folder as the context's, so that the cold child finds nothing and the warm one all.
    env = dict(os.environ, PLAIDML_CACHE_DIR=cache) if cache else None
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after %d s" % timeout}
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
    return {"error": "%s exited %d: %s" % (which, out.returncode, tail)}


# One result from several processes' (rounds'): the first error, or the first result with the
# timed runs pooled (median_s, min_s over all of them), the start-up figures the rounds' medians
# and the peak memory their largest.
def pooled(results):
    for r in results:
        if "error" in r:
            return r
    out = dict(results[0])
    times = [t for r in results for t in r["times_s"]]
    out.update(times_s=times, median_s=float(np.median(times)), min_s=float(np.min(times)),
               rounds=len(results),
               round_medians_s=[float(np.median(r["times_s"])) for r in results],
               rss_peak_bytes=max(r["rss_peak_bytes"] for r in results))
    if "device_times_s" in out:
        device = [t for r in results for t in r["device_times_s"]]
        out.update(device_times_s=device, device_median_s=float(np.median(device)))
    for key in ("ready_s", "compiled_s", "import_s"):
        if key in out:
            out[key] = float(np.median([r[key] for r in results]))
    return out


def measure(args, name, path, spec):
    rows = []
    symbolic = any(d == "batch" for i in spec["inputs"] for d in i["dims"])
    for threads in args.threads:
        for batch in (args.batch if symbolic else [1]):
            warms, orts = [], []
            with tempfile.TemporaryDirectory() as cache:
                cold = run_child(args, "plaidml", name, path, spec, threads, batch, cache,
                                 args.timeout)
                for _ in range(args.rounds):
                    warms.append(run_child(args, "plaidml", name, path, spec, threads, batch,
                                           cache, args.timeout))
                    orts.append(run_child(args, "ort", name, path, spec, threads, batch, "",
                                          args.timeout))
            row = {"model": name, "threads": threads, "batch": batch, "device": args.device,
                   "cold": pooled([cold]), "warm": pooled(warms), "ort": pooled(orts)}
            if args.torch:
                row["torch"] = pooled([run_child(args, "torch", name, path, spec, threads,
                                                 batch, "", args.timeout)])
            rows.append(row)
            print(format_row(row), flush=True)
    return rows


def ratio(a, b):
    return "%.2f" % (a / b) if a and b else "-"


def format_row(r):
    w, o, c = r["warm"], r["ort"], r["cold"]
    t = r.get("torch")
    torch_cols = ""
    if t is not None:
        if "median_s" in t and "median_s" in w:
            torch_cols = " %.2f | %s | %.2f | %s |" % (
                t["median_s"] * 1e3, ratio(w["median_s"], t["median_s"]),
                t["device_median_s"] * 1e3, ratio(w["median_s"], t["device_median_s"]))
        else:
            torch_cols = " %s | - | - | - |" % t.get("error", "-")[:60]
    if "error" in w or "error" in o or "error" in c:
        errors = "; ".join("%s: %s" % (which, x["error"]) for which, x in
                           (("cold", c), ("warm", w), ("onnxruntime", o)) if "error" in x)
        return "| %s | %d | %d | %s |%s" % (r["model"], r["threads"], r["batch"], errors,
                                            torch_cols)
    mb = 1 << 20
    return ("| {m} | {t} | {b} | {lat:.2f} | {olat:.2f} | **{lr}** | {thr:.1f} | {othr:.1f} | "
            "{mem:.0f} | {omem:.0f} | **{mr}** | {cold:.2f} | {ocold:.2f} | {warmc:.3f} / "
            "{warm:.3f} (import {imp:.3f}, generated {gen}, plan entries {plans}) |{tc}").format(
        tc=torch_cols, warmc=w["compiled_s"], imp=w["import_s"], plans=w["plan_disk_hits"],
        m=r["model"], t=r["threads"], b=r["batch"], lat=w["median_s"] * 1e3,
        olat=o["median_s"] * 1e3, lr=ratio(w["median_s"], o["median_s"]),
        thr=r["batch"] / w["median_s"], othr=r["batch"] / o["median_s"],
        mem=w["rss_peak_bytes"] / mb, omem=o["rss_peak_bytes"] / mb,
        mr=ratio(w["rss_peak_bytes"], o["rss_peak_bytes"]), cold=c["ready_s"],
        ocold=o["ready_s"], warm=w["ready_s"], gen=w["kernels_compiled"])


HEADER = ("| model | threads | batch | ours ms | ort ms | latency ratio | ours /s | ort /s | "
          "ours MB | ort MB | memory ratio | cold start s | ort session s | warm start s (ready / "
          "first run done) |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def models_to_run(args):
    found = []
    if args.models:
        with open(os.path.join(args.models, "manifest.json")) as f:
            manifest = json.load(f)
        for entry in manifest["models"]:
            if args.only and entry["model"] not in args.only.split(","):
                continue
            if entry.get("exporter", "torchscript") != "torchscript" and not args.dynamo:
                continue
            found.append((entry["model"], os.path.join(args.models, entry["file"]), entry))
    for item in args.model:
        name, path = item.split("=", 1)
        found.append((name, path, spec_of_file(path)))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", help="folder with export_models.py's manifest.json")
    p.add_argument("--only", default="", help="comma-separated model names of the manifest")
    p.add_argument("--dynamo", action="store_true", help="also the dynamo exports")
    p.add_argument("--model", action="append", default=[], help="NAME=PATH, repeatable")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--batch", default="1,8")
    p.add_argument("--sequence", type=int, default=128)
    p.add_argument("--device", default="cpu:0")
    p.add_argument("--ort-providers", default="CPUExecutionProvider")
    p.add_argument("--torch", action="store_true",
                   help="also PyTorch eager on CUDA (TF32 off): the model built by "
                        "export_models.py, where torch, torchvision and transformers are")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3,
                   help="warm plaidml and onnxruntime processes, alternating; runs pooled")
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--json")
    p.add_argument("--markdown")
    # Internal: one measurement in this process.
    p.add_argument("--child", choices=["plaidml", "ort", "torch"])
    p.add_argument("--path")
    p.add_argument("--spec")
    p.add_argument("--cache", default="")
    p.add_argument("--name", default="")
    args = p.parse_args()
    if args.child:
        args.threads, args.batch = int(args.threads), int(args.batch)
        return child_main(args)
    args.threads = [int(t) for t in args.threads.split(",")]
    args.batch = [int(b) for b in args.batch.split(",")]
    header = HEADER
    if args.torch:
        title, rule = HEADER.split("\n")
        header = (title + " torch ms | ratio to torch | torch on-device ms | ratio on-device |\n" +
                  rule + "---|---|---|---|")
    print(header, flush=True)
    rows = []
    for name, path, spec in models_to_run(args):
        rows += measure(args, name, path, spec)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(header + "\n" + "\n".join(format_row(r) for r in rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
