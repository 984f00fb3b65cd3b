#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/ (docs/fuzzing.md). Run from the repository root:

  python3 fuzz/make_seeds.py tile                 # Tile programs from tests/, docs/, examples/
  python3 fuzz/make_seeds.py onnx VENV_PYTHON     # small ONNX models (needs the onnx package)
  python3 fuzz/make_seeds.py cache BUILD_DIR      # real cache entries, made by the plaidml tool

Each writes files named by a hash of their content, so running it again adds nothing twice.
The seeds of builder_calls and differential, whose inputs are choices and not text, are what a
campaign kept, reduced (docs/fuzzing.md):

  build-fuzz/fuzz/fuzz_differential -set_cover_merge=1 fuzz/corpus/differential CAMPAIGN_CORPUS
"""
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_TILE_BYTES = 2048


def write_seed(target, data, prefix=b""):
    folder = os.path.join(ROOT, "fuzz", "corpus", target)
    os.makedirs(folder, exist_ok=True)
    data = prefix + data
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def c_string_literals(text):
    """The Tile programs written as raw strings R"(...)" or as ordinary "..." literals."""
    for m in re.finditer(r'R"\((.*?)\)"', text, re.S):
        yield m.group(1)
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*function \((?:[^"\\\n]|\\.)*)"', text):
        yield bytes(m.group(1), "utf-8").decode("unicode_escape")


def tile_programs():
    for path in glob.glob(os.path.join(ROOT, "tests", "**", "*.cc"), recursive=True) + glob.glob(
            os.path.join(ROOT, "tests", "**", "*.c"), recursive=True):
        for literal in c_string_literals(open(path, encoding="utf-8").read()):
            if "function" in literal:
                yield literal.strip() + "\n"
    for path in glob.glob(os.path.join(ROOT, "docs", "*.md")):
        for block in re.findall(r"```[a-z]*\n(.*?)```", open(path, encoding="utf-8").read(), re.S):
            if block.lstrip().startswith("function"):
                yield block
    for path in glob.glob(os.path.join(ROOT, "**", "*.tile"), recursive=True):
        if "/build" not in path:
            yield open(path, encoding="utf-8").read()


def seed_tile():
    count = 0
    for program in set(tile_programs()):
        data = program.encode("utf-8")
        if len(data) <= MAX_TILE_BYTES:
            write_seed("tile_text", data)
            count += 1
    print(f"tile_text: {count} programs")


# Run by the onnx venv's python: the first two node test cases of each op type (small
# models), the backend suite's small model files, and tests/data/onnx.
ONNX_SCRIPT = r"""
import glob, os, sys
import onnx
from onnx.backend.test.case.node import collect_testcases
out, limit = sys.argv[1], int(sys.argv[2])
seen = {}
for case in collect_testcases():
    nodes = case.model.graph.node
    op = nodes[0].op_type if nodes else case.name
    data = case.model.SerializeToString()
    if seen.get(op, 0) >= 2 or len(data) > limit:
        continue
    seen[op] = seen.get(op, 0) + 1
    open(os.path.join(out, case.name + ".onnx"), "wb").write(data)
data_dir = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
for path in glob.glob(os.path.join(data_dir, "*", "*", "model.onnx")):
    if os.path.getsize(path) <= limit:
        name = path.split(os.sep)[-2]
        open(os.path.join(out, name + ".onnx"), "wb").write(open(path, "rb").read())
"""


def seed_onnx(python):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([python, "-c", ONNX_SCRIPT, tmp, "8192"], check=True)
        paths = glob.glob(os.path.join(tmp, "*.onnx"))
        paths += glob.glob(os.path.join(ROOT, "tests", "data", "onnx", "*.onnx"))
        for path in paths:
            write_seed("onnx_import", open(path, "rb").read())
    print(f"onnx_import: {len(paths)} models")


# Programs whose kernels and plans the cache_entry seeds hold: a contraction, elementwise
# work and an integer reduction.
CACHE_PROGRAMS = [
    ("function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }",
     ["A=random:f32:2x3", "B=random:f32:3x2"]),
    ("function (X[N]) -> (R) { R = relu(X * 2 + 1); }", ["X=random:f32:5"]),
    ("function (X[N, M]) -> (S) { S[i : N] = >(X[i, j]); }", ["X=random:i32:3x4"]),
]


# The payload of a whole kernel or plan entry (jit/cache/disk_cache.h's layout) and the
# decoder mode of fuzz/cache_entry.cc that reads it: 1 an artifact, 2 a plan record.
def entry_payload(entry):
    key_size = int.from_bytes(entry[48:56], "little")
    payload_size = int.from_bytes(entry[56:64], "little")
    key = entry[72:72 + key_size]
    mode = b"\x02" if key.startswith(b"plaidml plan\n") else b"\x01"
    return mode, entry[72 + key_size:72 + key_size + payload_size]


def seed_cache(build):
    tool = os.path.join(build, "tools", "plaidml")
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PLAIDML_CACHE_DIR=os.path.join(tmp, "cache"))
        for i, (tile, shapes) in enumerate(CACHE_PROGRAMS):
            path = os.path.join(tmp, f"p{i}.tile")
            open(path, "w").write(tile)
            args = [tool, "run", path] + [a for s in shapes for a in ("--input", s)]
            subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL)
        # An imported model is kept in the cache's programs/ folder as a program file.
        model = os.path.join(ROOT, "tests", "data", "onnx", "add_relu.onnx")
        subprocess.run([tool, "run", model, "--input", "input.1=random:f32:2x3"], check=True,
                       env=env, stdout=subprocess.DEVNULL)
        for path in glob.glob(os.path.join(tmp, "cache", "**", "*"), recursive=True):
            if not os.path.isfile(path) or os.path.getsize(path) > 65536:
                continue
            data = open(path, "rb").read()
            if os.sep + "programs" + os.sep in path:
                write_seed("cache_entry", data, prefix=b"\x03")  # a program file
            else:
                write_seed("cache_entry", data, prefix=b"\x00")  # a whole entry
                mode, payload = entry_payload(data)
                write_seed("cache_entry", payload, prefix=mode)
            count += 1
    print(f"cache_entry: {count} files")


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else ""
    if kind == "tile":
        seed_tile()
    elif kind == "onnx" and len(sys.argv) == 3:
        seed_onnx(sys.argv[2])
    elif kind == "cache" and len(sys.argv) == 3:
        seed_cache(sys.argv[2])
    else:
        sys.exit(__doc__)
