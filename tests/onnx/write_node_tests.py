#!/usr/bin/env python3
"""Writes onnx's node test cases to disk, in the layout of onnx's own test data:

    <out>/node/test_xxx/model.onnx
    <out>/node/test_xxx/test_data_set_0/input_K.pb, output_K.pb
    <out>/node/manifest.json      name -> op type, expanded, opset, rtol, atol, ... (run_suite.py)
    <out>/node/stamp.json         the onnx version that wrote them

Why: since onnx 1.16 the wheel carries no node test data; the cases are Python functions
(onnx.backend.test.case.node.collect_testcases(), 1,884 with onnx 1.23.2) that compute their
expected outputs with numpy. run_suite.py runs each case in a worker subprocess that only has to
read two small files, instead of every worker importing and running all of the case code.

The files are written by onnx's own `backend-test-tools generate-data` function
(onnx.backend.test.cmd_tools.generate_data), which in onnx 1.23 only writes the model test cases:
it is handed the node cases instead, so the serialization (tensors, sequences, optionals) is
onnx's. The folder is built beside the target and renamed into place, so an interrupted run
never leaves a half-written folder that looks complete. When the stamp names the installed onnx
version the folder is kept as is (--force rewrites it).

    python write_node_tests.py --output <build>/onnx-node-data [--force]
"""
import argparse
import importlib.metadata
import json
import os
import shutil
import sys
import time
import types
import warnings

STAMP_VERSION = 2  # bump when the manifest's format changes


def op_of(case, existing):
    """The op type a case tests: its node's, or for an `_expanded` case (the op's function
    body, several nodes) the op of the case it was expanded from."""
    base = case.name.split("_expanded")[0]
    node = existing.get(case.name) or existing.get(base)
    if node is None and len(case.model.graph.node) == 1:
        node = case.model.graph.node[0]
    if node is None:
        return "?", ""
    return node.op_type, node.domain


def manifest_entry(index, case, existing):
    """What run_suite.py needs to know of a case without loading it; index: its place in
    onnx's order (an op's basic case first), which --one-per-op picks by."""
    op, domain = op_of(case, existing)
    opsets = {o.domain or "ai.onnx": o.version for o in case.model.opset_import}
    return {"index": index, "op": op, "domain": domain or "ai.onnx",
            "expanded": "_expanded" in case.name,
            "opset": opsets.get(domain or "ai.onnx", opsets.get("ai.onnx")),
            "ir_version": case.model.ir_version, "rtol": case.rtol, "atol": case.atol,
            "inputs": len(case.model.graph.input), "outputs": len(case.model.graph.output)}


def stamp_for(onnx_version):
    return {"onnx": onnx_version, "format": STAMP_VERSION}


def is_current(out):
    """True when <out>/node was completely written by the installed onnx version."""
    try:
        with open(os.path.join(out, "node", "stamp.json")) as f:
            stamp = json.load(f)
    except (OSError, ValueError):
        return False
    return stamp == stamp_for(importlib.metadata.version("onnx"))


def write(out):
    """Writes every node case under <out>/node; returns (case count, seconds collecting,
    seconds writing)."""
    import onnx
    import onnx.backend.test.case.node as node_cases
    from onnx.backend.test import cmd_tools

    t0 = time.monotonic()
    with warnings.catch_warnings():  # the cases' own overflow/divide-by-zero warnings (inf, nan
        warnings.simplefilter("ignore", RuntimeWarning)  # are what they mean to compute)
        cases = node_cases.collect_testcases()
    t1 = time.monotonic()
    tmp_root = os.path.join(out, ".node-tmp-%d" % os.getpid())
    shutil.rmtree(tmp_root, ignore_errors=True)
    # generate_data() writes model_test.collect_testcases() under args.output/<kind>/<name>:
    # point its model_test at the node cases (kind "node").
    saved = cmd_tools.model_test
    cmd_tools.model_test = types.SimpleNamespace(collect_testcases=lambda: cases)
    try:
        cmd_tools.generate_data(argparse.Namespace(output=tmp_root))
    finally:
        cmd_tools.model_test = saved
    existing = node_cases._existing_names
    manifest = {c.name: manifest_entry(i, c, existing) for i, c in enumerate(cases)}
    node_tmp = os.path.join(tmp_root, "node")
    with open(os.path.join(node_tmp, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0, sort_keys=True)
    with open(os.path.join(node_tmp, "stamp.json"), "w") as f:
        json.dump(stamp_for(onnx.__version__), f)
    final = os.path.join(out, "node")
    old = os.path.join(tmp_root, "old")
    if os.path.exists(final):
        os.rename(final, old)
    os.rename(node_tmp, final)
    shutil.rmtree(tmp_root, ignore_errors=True)
    return len(cases), t1 - t0, time.monotonic() - t1


def ensure(out, force=False, log=sys.stderr):
    """Writes the node data unless it is current. Returns the node folder."""
    if not force and is_current(out):
        print("node test data up to date: %s" % os.path.join(out, "node"), file=log)
        return os.path.join(out, "node")
    os.makedirs(out, exist_ok=True)
    count, collect_s, write_s = write(out)
    print("wrote %d node test cases to %s (collect %.1f s, write %.1f s)"
          % (count, os.path.join(out, "node"), collect_s, write_s), file=log)
    return os.path.join(out, "node")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", "-o", required=True, help="folder to write <out>/node in")
    parser.add_argument("--force", action="store_true", help="rewrite even when up to date")
    args = parser.parse_args()
    ensure(os.path.abspath(args.output), args.force, log=sys.stdout)


if __name__ == "__main__":
    main()
