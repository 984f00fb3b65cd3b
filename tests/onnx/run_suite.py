#!/usr/bin/env python3
"""Runs onnx's backend test cases against plaidml.onnx.backend, each case in isolation.

    python run_suite.py --data-dir <build>/onnx-node-data [--device CPU|OPENCL|VULKAN]
        [--filter REGEX] [--one-per-op] [--models] [--jobs N] [--timeout 60]
        [--json out.json] [--expect-min-pass N] [--allow-fail] [--backend MODULE]

--backend onnxruntime.backend runs the same cases on onnxruntime (1,588 of 1,884 node cases
pass with onnxruntime 1.32): a check of the harness, its data and its comparisons.

Cases: the node cases written by write_node_tests.py (written on the spot when the folder is
missing or was written by another onnx version), and with --models the model cases in the onnx
wheel (onnx/backend/test/data/{simple,pytorch-converted,pytorch-operator} and the `real` cases,
which are the light_* models run on onnx's deterministic dummy input).

Each case runs in a worker subprocess (suite_worker.py, which says how a case is classified as
pass, unsupported or fail); a worker that dies or runs past --timeout makes that case a
"crash" and is replaced. Workers are reused between cases (one import of numpy/onnx/plaidml and
one plaidml context per worker), so a case sees no state of another beyond compiled kernels.

Prints a per-op table and the line "node tests: P pass, U unsupported, F fail, C crash of T".
Exit status: 1 when a case fails or crashes (unless --allow-fail) or fewer than
--expect-min-pass cases pass; 2 for a usage error.
"""
import argparse
import collections
import json
import os
import queue
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STATUSES = ("pass", "unsupported", "fail", "crash")


def node_cases(data_dir):
    """The node cases under data_dir/node (written first if needed), sorted by name."""
    sys.path.insert(0, HERE)
    import write_node_tests
    node_dir = write_node_tests.ensure(data_dir, log=sys.stdout)
    with open(os.path.join(node_dir, "manifest.json")) as f:
        manifest = json.load(f)
    cases = []
    for name in sorted(manifest):
        m = manifest[name]
        case_dir = os.path.join(node_dir, name)
        cases.append(dict(m, name=name, kind="node", dir=case_dir,
                          model=os.path.join(case_dir, "model.onnx")))
    return cases


def model_cases():
    """The model cases shipped in the onnx wheel (tolerances from their data.json)."""
    import onnx.backend.test.loader as loader
    data = loader.DATA_DIR
    cases = []
    for kind in ("simple", "pytorch-converted", "pytorch-operator", "real"):
        for tc in sorted(loader.load_model_tests(data, kind), key=lambda t: t.name):
            case = {"name": tc.name, "kind": kind, "op": "(model: %s)" % kind, "expanded": False,
                    "rtol": tc.rtol, "atol": tc.atol}
            if kind == "real":  # url: onnx/backend/test/data/light/light_<model>.onnx
                if not (tc.url or "").startswith("onnx/backend/test/data/light/"):
                    continue
                light = os.path.join(data, "light", os.path.basename(tc.url))
                case.update(model=light, expected=light[:-len(".onnx")] + "_output_0.pb",
                            dir=None)
            else:
                case.update(model=os.path.join(tc.model_dir, "model.onnx"), dir=tc.model_dir)
            cases.append(case)
    return cases


def select_cases(cases, pattern, one_per_op):
    if pattern:
        rx = re.compile(pattern)
        cases = [c for c in cases if rx.search(c["name"])]
    if one_per_op:  # each op's first case in onnx's order (its basic one), not an expansion
        first = {}
        for c in sorted(cases, key=lambda c: (c["expanded"], c.get("index", 0), c["name"])):
            first.setdefault(c["op"], c)
        cases = sorted(first.values(), key=lambda c: c["name"])
    return cases


class Worker:
    """One suite_worker.py subprocess, restarted after a crash or a timeout."""

    def __init__(self, device, backend, env, log_dir, index):
        self.device, self.backend, self.env = device, backend, env
        self.log_path = os.path.join(log_dir, "worker-%d.log" % index)
        self.proc, self.buf = None, b""

    def _start(self):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "suite_worker.py"), self.device, self.backend],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=self.env,
            start_new_session=True)
        self.buf = b""
        line = self._read_line(time.monotonic() + 300)
        if line is None or not json.loads(line).get("ready"):
            raise RuntimeError("worker did not start: %s" % self._log_tail(0))

    def _read_line(self, deadline):
        """One line from the worker, or None on EOF or at the deadline."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def _log_tail(self, offset, limit=1500):
        try:
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return text[-limit:]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the worker's own process group
            except ProcessLookupError:
                pass
        if self.proc:
            self.proc.wait()
            self.log.close()
        self.proc = None

    def run(self, case, timeout):
        if self.proc is None:
            self._start()
        offset = os.path.getsize(self.log_path)
        start = time.monotonic()
        try:
            self.proc.stdin.write((json.dumps(case) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._read_line(start + timeout)
        if line is not None:
            return json.loads(line)
        seconds = round(time.monotonic() - start, 4)
        rc = self.proc.poll()
        if rc is None:  # not dead yet: give a dying worker a moment to be reaped
            try:
                rc = self.proc.wait(timeout=1 if time.monotonic() - start < timeout else 0.01)
            except subprocess.TimeoutExpired:
                rc = None
        timed_out = rc is None
        self.stop()
        if timed_out:
            why = "timeout: no result after %g s" % timeout
        elif rc < 0:
            why = "worker killed by %s" % signal.Signals(-rc).name
        else:
            why = "worker exited with status %d" % rc
        return {"status": "crash", "stage": "timeout" if timed_out else "crash",
                "message": why, "stderr": self._log_tail(offset).strip(), "seconds": seconds}


def run_all(cases, args, env, log_dir):
    todo = queue.Queue()
    for i, c in enumerate(cases):
        todo.put((i, c))
    results = [None] * len(cases)
    done = [0]
    lock = threading.Lock()
    last_report = [time.monotonic()]

    workers = [Worker(args.device, args.backend, env, log_dir, i) for i in range(args.jobs)]

    def loop(index):
        worker = workers[index]
        try:
            while True:
                try:
                    i, case = todo.get_nowait()
                except queue.Empty:
                    return
                timeout = args.timeout if case["kind"] == "node" else args.model_timeout
                try:
                    r = worker.run(case, timeout)
                except Exception as e:  # noqa: BLE001 - a worker that cannot start
                    worker.stop()
                    r = {"status": "crash", "stage": "worker", "message": str(e), "seconds": 0}
                results[i] = dict(r, name=case["name"], kind=case["kind"], op=case["op"],
                                  expanded=case["expanded"], opset=case.get("opset"))
                with lock:
                    done[0] += 1
                    if args.verbose or r["status"] in ("crash",) or (
                            r["status"] == "fail" and args.show_failures):
                        print("%-11s %s %s" % (r["status"], case["name"],
                                               r["message"][:300]), flush=True)
                        if r.get("stderr"):
                            print("    worker stderr: " + r["stderr"][-600:].replace(
                                "\n", "\n    "), flush=True)
                    if time.monotonic() - last_report[0] > 30:
                        last_report[0] = time.monotonic()
                        print("... %d/%d cases" % (done[0], len(cases)), flush=True)
        finally:
            worker.stop()

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(args.jobs)]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.5)
    except KeyboardInterrupt:  # workers run in their own sessions: stop them here
        for w in workers:
            w.stop()
        raise
    return results


def summarize(results, kinds):
    lines = []
    for label, members in kinds:
        rs = [r for r in results if r["kind"] in members]
        if rs:
            c = collections.Counter(r["status"] for r in rs)
            lines.append("%s tests: %d pass, %d unsupported, %d fail, %d crash of %d" % (
                label, c["pass"], c["unsupported"], c["fail"], c["crash"], len(rs)))
    return lines


def op_table(results):
    """Per op: the op's own cases by status, and its expanded (function-body) cases."""
    rows = collections.defaultdict(lambda: collections.Counter())
    for r in results:
        row = rows[r["op"]]
        if r["expanded"]:
            row["exp_total"] += 1
            row["exp_pass"] += r["status"] == "pass"
        else:
            row[r["status"]] += 1
    out = ["%-34s %5s %5s %5s %5s  %s" % ("op", "pass", "unsup", "fail", "crash", "expanded")]
    for op in sorted(rows):
        row = rows[op]
        exp = "%d/%d" % (row["exp_pass"], row["exp_total"]) if row["exp_total"] else "-"
        out.append("%-34s %5d %5d %5d %5d  %s" % (op, row["pass"], row["unsupported"],
                                                   row["fail"], row["crash"], exp))
    return out


def top_reasons(results, status, limit=15):
    """The most common messages of a status (first line, numbers folded), with a sample case."""
    groups = collections.OrderedDict()
    for r in results:
        if r["status"] == status:
            text = " ".join((r["message"] or "(no message)").split())[:160]
            key = re.sub(r"\d+(\.\d+)?", "N", text)
            groups.setdefault(key, []).append(r)
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))[:limit]
    lines = []
    for key, rs in ranked:
        lines.append("%5d x %s" % (len(rs), key))
        example = " ".join((rs[0]["message"] or "").split())
        lines.append("        e.g. %s [%s]: %s" % (rs[0]["name"], rs[0]["stage"], example[:600]))
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=os.environ.get("PLAIDML_ONNX_NODE_DATA") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "plaidml-ci",
        "onnx-node-data"), help="where write_node_tests.py wrote (or will write) <dir>/node")
    p.add_argument("--device", default="CPU", help="CPU, OPENCL, VULKAN or a plaidml device id")
    p.add_argument("--backend", default="plaidml.onnx.backend", help="the backend module; "
                   "onnxruntime.backend checks the harness itself against a known-good one")
    p.add_argument("--filter", help="only cases whose name matches this regex (re.search)")
    p.add_argument("--one-per-op", action="store_true", help="the first case of each op only")
    p.add_argument("--models", action="store_true", help="also the model tests in the wheel")
    p.add_argument("--no-nodes", action="store_true", help="leave out the node tests")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=60, help="seconds per node case")
    p.add_argument("--model-timeout", type=float, default=600, help="seconds per model case")
    p.add_argument("--json", help="write every result here")
    p.add_argument("--expect-min-pass", type=int, default=0)
    p.add_argument("--allow-fail", action="store_true", help="fails/crashes do not fail the run")
    p.add_argument("--table", action="store_true", default=True, help=argparse.SUPPRESS)
    p.add_argument("--no-table", dest="table", action="store_false", help="no per-op table")
    p.add_argument("--show-failures", action="store_true", help="print each fail as it happens")
    p.add_argument("--verbose", "-v", action="store_true", help="print every result")
    args = p.parse_args()
    if args.jobs < 1:
        p.error("--jobs must be at least 1")

    start = time.monotonic()
    cases = [] if args.no_nodes else node_cases(os.path.abspath(args.data_dir))
    if args.models:
        cases += model_cases()
    cases = select_cases(cases, args.filter, args.one_per_op)
    if not cases:
        print("no test cases selected", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=os.pathsep.join(
        filter(None, [os.path.join(ROOT, "bindings", "python"), os.environ.get("PYTHONPATH")])))
    print("running %d cases on %s (%s) with %d workers" % (
        len(cases), args.device, args.backend, args.jobs), flush=True)
    with tempfile.TemporaryDirectory(prefix="plaidml-onnx-suite-") as log_dir:
        results = run_all(cases, args, env, log_dir)
    seconds = time.monotonic() - start

    if args.table:
        print("\n".join(op_table(results)))
    for status in ("fail", "crash", "unsupported"):
        reasons = top_reasons(results, status)
        if reasons:
            print("most common %s reasons:" % status)
            print("\n".join(reasons))
    summary = summarize(results, [("node", ("node",)), ("model", (
        "simple", "pytorch-converted", "pytorch-operator", "real"))])
    print("\n".join(summary))
    print("(%.1f s, device %s)" % (seconds, args.device))
    if args.json:
        import onnx
        with open(args.json, "w") as f:
            json.dump({"onnx": onnx.__version__, "device": args.device, "backend": args.backend,
                       "seconds": round(seconds, 1), "summary": summary,
                       "results": results}, f, indent=1)
    counts = collections.Counter(r["status"] for r in results)
    status = 0
    if (counts["fail"] or counts["crash"]) and not args.allow_fail:
        print("FAILED: %d fail, %d crash" % (counts["fail"], counts["crash"]))
        status = 1
    if counts["pass"] < args.expect_min_pass:
        print("FAILED: %d pass, fewer than --expect-min-pass %d" % (
            counts["pass"], args.expect_min_pass))
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
