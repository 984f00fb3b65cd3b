"""Two plaidml builds on one model, in alternating processes: the median latency of each round
and the ratio of the medians (new / base). A schedule change measured this way is compared on
the same machine in the same minutes, which this VM's drift (up to 20 % over an hour) requires.

    python bench/models/compare_builds.py MODEL.onnx --base /tmp/base/build --new build \\
        --threads 1 --rounds 3 [--dim sequence=128]

Each build is a CMake build folder (its src/capi/libplaidml.so and
src/frontend/onnx/libplaidml_onnx.so); the Python binding is this tree's. Inputs as in
node_profile.py (random floats, integer inputs 1, symbolic dims 1 unless --dim gives them).
The kernel cache is off, so each process compiles its own build's kernels.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# One timed process: load, 3 warm-up runs, the median of --runs runs, printed as JSON (ms).
CHILD = r'''
import json, statistics, sys, time
import onnx, plaidml, plaidml.onnx
sys.path.insert(0, sys.argv[1])
import node_profile
path, threads, runs = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
symbolic = json.loads(sys.argv[5])
feeds = node_profile.random_feeds(onnx.load(path, load_external_data=False), symbolic)
program = plaidml.onnx.load(path)
ctx = plaidml.Context(device="cpu:0", num_threads=threads)
for _ in range(3):
    ctx.run(program, feeds)
times = []
for _ in range(runs):
    start = time.perf_counter()
    ctx.run(program, feeds)
    times.append(time.perf_counter() - start)
print(json.dumps(statistics.median(times) * 1e3))
'''


def run_once(build, args, symbolic):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python"),
               PLAIDML_LIBRARY=os.path.join(build, "src", "capi", "libplaidml.so"),
               PLAIDML_ONNX_LIBRARY=os.path.join(build, "src", "frontend", "onnx",
                                                 "libplaidml_onnx.so"),
               PLAIDML_CACHE_DIR="")
    out = subprocess.run([sys.executable, "-c", CHILD, HERE, args.model, str(args.threads),
                          str(args.runs), json.dumps(symbolic)],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("%s failed:\n%s" % (build, out.stderr))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--base", required=True, help="the reference build folder")
    p.add_argument("--new", required=True, help="the build folder measured against it")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE")
    args = p.parse_args()
    symbolic = {k: int(v) for k, v in (d.split("=") for d in args.dim)}
    medians = {"base": [], "new": []}
    for _ in range(args.rounds):
        for name in ("base", "new"):
            medians[name].append(run_once(getattr(args, name), args, symbolic))
    for name, values in medians.items():
        print("%-4s ms: %s" % (name, " ".join("%.2f" % v for v in values)))
    print("new / base (medians of the rounds' medians): %.3f" %
          (statistics.median(medians["new"]) / statistics.median(medians["base"])))


if __name__ == "__main__":
    main()
