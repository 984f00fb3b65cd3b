"""Runs exported models (export_models.py's manifest) with onnxruntime (the oracle, CPU
execution provider) and with plaidml on each device, on the same random inputs, and reports the
largest absolute and relative differences, with import, first-run (compile) and warm-run times.

    python bench/models/compare_onnx.py --models /tmp/models --devices cpu:0,opencl:0,vulkan:0 \
        --json out.json --markdown out.md

Relative error is max|ours - ort| / max|ort| per output (a scale-free figure for logits and
hidden states alike). A model that does not import is reported with the importer's message.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

import numpy as np
import onnxruntime as ort

import plaidml
import plaidml.onnx
from model_inputs import import_dims, make_inputs


def errors(ours, ref):
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    if ours.shape != ref.shape:
        return {"shape": [list(ours.shape), list(ref.shape)]}
    diff = float(np.max(np.abs(ours - ref))) if ref.size else 0.0
    scale = float(np.max(np.abs(ref))) if ref.size else 1.0
    return {"max_abs": diff, "max_rel": diff / scale if scale else diff}


def run_plaidml(path, feeds, device, outputs, channels_last, dims):
    start = time.time()
    program = plaidml.onnx.load(path, channels_last=channels_last, **dims)
    imported = time.time() - start
    ctx = plaidml.Context(device=device)
    start = time.time()
    got = ctx.run(program, feeds)
    first = time.time() - start
    start = time.time()
    got = ctx.run(program, feeds)
    warm = time.time() - start
    return [got[name] for name in outputs], {"import_s": round(imported, 3),
                                              "first_run_s": round(first, 3),
                                              "warm_run_s": round(warm, 4)}


def compare(entry, folder, devices, batch, seq, threads, channels_last=True):
    path = os.path.join(folder, entry["file"])
    rng = np.random.default_rng(0)
    feeds = make_inputs(entry, batch, seq, rng)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    start = time.time()
    ref = session.run(entry["outputs"], feeds)
    result = {"file": entry["file"], "exporter": entry["exporter"], "batch": batch, "seq": seq,
              "ort_run_s": round(time.time() - start, 4), "devices": {}}
    for device in devices:
        try:
            ours, times = run_plaidml(path, feeds, device, entry["outputs"], channels_last,
                                      import_dims(entry, batch, seq))
            result["devices"][device] = dict(
                times, outputs={n: errors(o, r) for n, o, r in zip(entry["outputs"], ours, ref)})
        except Exception as e:  # an error is this device's result; the others still run
            result["devices"][device] = {"error": "%s: %s" % (type(e).__name__, str(e)[:600])}
        print(json.dumps({entry["file"]: {device: result["devices"][device]}}), file=sys.stderr,
              flush=True)
    return result


def markdown(results):
    lines = ["| model | exporter | device | max abs err | max rel err | import s | first run s |"
             " warm run s |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        for device, d in r["devices"].items():
            if "error" in d:
                lines.append("| %s | %s | %s | %s | | | | |" % (r["file"], r["exporter"], device,
                                                             d["error"][:160].replace("|", "/")))
                continue
            worst_abs = max(o.get("max_abs", float("nan")) for o in d["outputs"].values())
            worst_rel = max(o.get("max_rel", float("nan")) for o in d["outputs"].values())
            lines.append("| %s | %s | %s | %.3g | %.3g | %s | %s | %s |" % (
                r["file"], r["exporter"], device, worst_abs, worst_rel, d["import_s"],
                d["first_run_s"], d["warm_run_s"]))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", required=True, help="the folder export_models.py wrote")
    parser.add_argument("--devices", default="cpu:0")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--only", default="", help="comma-separated file names")
    parser.add_argument("--timeout", type=int, default=240, help="seconds per model and device")
    parser.add_argument("--jobs", type=int, default=1, help="models and devices run at once")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--channels-first", action="store_true",
                        help="import every op as written (no channels-last layout)")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    with open(os.path.join(args.models, "manifest.json")) as f:
        manifest = json.load(f)
    entries = [e for e in manifest["models"]
               if not args.only or e["file"] in args.only.split(",")]
    if args.worker:  # one model on the devices given, its result as one JSON line
        print("RESULT " + json.dumps(compare(entries[0], args.models, args.devices.split(","),
                                             args.batch, args.seq, args.threads,
                                             not args.channels_first)), flush=True)
        return 0
    # Every (model, device) pair in its own child, --jobs at a time; the reports are rewritten
    # as each finishes, so a run cut short keeps what it did.
    by_file = {}
    tasks = [(e, d) for e in entries for d in args.devices.split(",")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_worker, e, d, args): e["file"] for e, d in tasks}
        for done in concurrent.futures.as_completed(futures):
            one = done.result()
            merged = by_file.setdefault(futures[done], dict(one, devices={}))
            merged["devices"].update(one["devices"])
            print(json.dumps({futures[done]: one["devices"]}), flush=True)
            write_reports([by_file[e["file"]] for e in entries if e["file"] in by_file], args)
    results = [by_file[e["file"]] for e in entries]
    print(markdown(results))
    return 0


def run_worker(entry, device, args):
    """compare() of one model on one device in a child process, so that a crash or a run past
    --timeout is that device's result, not the end of the report."""
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--models", args.models,
               "--only", entry["file"], "--devices", device, "--batch", str(args.batch),
               "--seq", str(args.seq), "--threads", str(args.threads)]
    if args.channels_first:
        command.append("--channels-first")
    base = {"file": entry["file"], "exporter": entry["exporter"], "batch": args.batch,
            "seq": args.seq}
    try:
        child = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return dict(base, devices={device: {"error": "timed out after %d s" % args.timeout}})
    for line in child.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (child.stderr or child.stdout)[-600:]
    return dict(base, devices={device: {"error": "exit status %d: %s" % (child.returncode,
                                                                           tail)}})


def write_reports(results, args):
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"onnxruntime": ort.__version__, "plaidml": plaidml.version(),
                       "results": results}, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(results))


if __name__ == "__main__":
    sys.exit(main())
