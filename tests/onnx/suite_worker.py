"""The worker process of run_suite.py: runs one ONNX test case at a time, classifies it.

Why a separate process: a case that crashes the process (a segfault in the importer or a
device driver) or hangs must cost one case, not the run. run_suite.py starts workers as
`python suite_worker.py DEVICE [BACKEND_MODULE]`, sends one JSON case per line on stdin, and
reads one JSON result per line; it restarts a worker that dies or overruns its time limit.
The protocol uses a private copy of the original stdout: fd 1 is pointed at stderr, so anything
a library prints cannot corrupt it. The second argument names another backend module
(onnxruntime.backend) to check the harness itself against a known-good backend.

A case is classified as
  pass         every output matches, by onnx's own comparison
               (onnx.backend.test.runner.Runner.assert_similar_outputs: same count, shape and
               dtype, then numpy.testing.assert_allclose with the case's rtol/atol, which are
               onnx's defaults rtol=1e-3, atol=1e-7 unless the case's data.json says otherwise);
  unsupported  the importer refused the model (plaidml.onnx.Unsupported from prepare);
  fail         anything else: a wrong answer, shape or dtype, or any other exception (including
               a missing libplaidml_onnx), with the stage it happened in.
"""
import faulthandler
import glob
import importlib
import json
import os
import sys
import time
import traceback

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "bindings", "python"))

MESSAGE_LIMIT = 2000


def _short(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    return text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT] + " ..."


def _load_proto(path, type_proto):
    """A .pb test file as the value the backend receives (mirrors onnx's Runner._load_proto)."""
    import onnx
    from onnx import numpy_helper
    with open(path, "rb") as f:
        data = f.read()
    if type_proto.HasField("sequence_type"):
        seq = onnx.SequenceProto()
        seq.ParseFromString(data)
        return numpy_helper.to_list(seq)
    if type_proto.HasField("optional_type"):
        opt = onnx.OptionalProto()
        opt.ParseFromString(data)
        return numpy_helper.to_optional(opt)
    tensor = onnx.TensorProto()
    tensor.ParseFromString(data)
    return numpy_helper.to_array(tensor)


def _data_sets(case, model):
    """[(inputs, expected outputs)] of a case: its test_data_set_N folders, or for a `real`
    (light) model onnx's deterministic dummy input and the output file shipped beside it."""
    from onnx.backend.test.runner import Runner
    graph = model.graph
    if case["kind"] == "real":
        inits = {t.name for t in graph.initializer}
        inputs = [Runner.generate_dummy_data(x, seed=0, name=case["name"], random=False)
                  for x in graph.input if x.name not in inits]
        return [(inputs, [_load_proto(case["expected"], graph.output[0].type)])]
    sets = []
    for folder in sorted(glob.glob(os.path.join(case["dir"], "test_data_set_*"))):
        n_in = len(glob.glob(os.path.join(folder, "input_*.pb")))
        n_out = len(glob.glob(os.path.join(folder, "output_*.pb")))
        inputs = [_load_proto(os.path.join(folder, "input_%d.pb" % i), graph.input[i].type)
                  for i in range(n_in)]
        outputs = [_load_proto(os.path.join(folder, "output_%d.pb" % i), graph.output[i].type)
                   for i in range(n_out)]
        sets.append((inputs, outputs))
    return sets


def run_case(case, device, backend):
    """Runs one case; returns {status, stage, message}."""
    import onnx
    from onnx.backend.test.runner import Runner
    unsupported = getattr(sys.modules.get("plaidml.onnx"), "Unsupported", ())
    # A device's refusal at run time (PLAIDML_STATUS_UNSUPPORTED from execute).
    device_unsupported = getattr(sys.modules.get("plaidml"), "UnsupportedError", ())

    stage = "read"
    try:
        model = onnx.load(case["model"])
        data_sets = _data_sets(case, model)
        if backend is None:  # plaidml.onnx.backend itself did not import
            stage = "load-library"
            raise _import_error
        stage = "import"
        try:
            rep = backend.prepare(model, device)
        except unsupported as e:
            return {"status": "unsupported", "stage": stage, "message": e.message}
        except ImportError as e:  # LibraryNotFoundError: libplaidml or libplaidml_onnx
            stage = "load-library"
            raise e
        for inputs, expected in data_sets:
            stage = "run"
            try:
                outputs = list(rep.run(inputs))
            except device_unsupported as e:
                # The device refuses the program with a status (lavapipe's 32 storage buffers
                # per module, say): no answer was given, so not a wrong one.
                return {"status": "unsupported", "stage": stage, "message": str(e)}
            stage = "compare"
            Runner.assert_similar_outputs(expected, outputs, rtol=_rtol(case, expected),
                                          atol=_atol(case), model_dir=case.get("dir"))
        return {"status": "pass", "stage": "", "message": ""}
    except Exception as e:  # noqa: BLE001 - every other failure is a "fail" of this case
        if os.environ.get("PLAIDML_ONNX_SUITE_TRACEBACK"):
            traceback.print_exc()
        return {"status": "fail", "stage": stage, "message": _short(e)}


# float16 has 11 significant bits: one unit in the last place is up to 9.8e-4 relative, about
# onnx's default rtol. The reference rounds to f16 after every op of an expanded function,
# plaidml once per op of its own (softmax, for one, is one op): results one ulp apart are both
# right, so f16 outputs are compared within two ulps (rtol 2e-3). Every other dtype keeps the
# case's own tolerance.
F16_RTOL = 2e-3


# Cases whose expected outputs carry the reference's own rounding error beyond the case's
# tolerance, compared with the atol given here instead (each reason checked by hand):
#   the inverse DFT tests: numpy computed the expected values as complex64 FFTs, whose imaginary
#   part at n/2 is 1.9e-7 where the exact value (and plaidml's, computed in f64) is ~1e-16;
#   the case's atol is 1e-7.
KNOWN_REFERENCE_ERROR_ATOL = {"test_dft_inverse": 1e-6, "test_dft_inverse_opset19": 1e-6}


def _atol(case):
    return max(case["atol"], KNOWN_REFERENCE_ERROR_ATOL.get(case.get("name", ""), 0.0))


def _rtol(case, expected):
    import numpy as np
    if any(getattr(e, "dtype", None) == np.float16 for e in expected):
        return max(case["rtol"], F16_RTOL)
    return case["rtol"]


_import_error = None


def main():
    global _import_error
    device = sys.argv[1] if len(sys.argv) > 1 else "CPU"
    backend_name = sys.argv[2] if len(sys.argv) > 2 else "plaidml.onnx.backend"
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # library output goes to stderr, never into the protocol
    sys.stdout = sys.stderr
    faulthandler.enable()  # a crash leaves the Python stack in stderr, which run_suite shows
    import numpy as np  # noqa: F401 - import cost before "ready", not inside a case's time
    import onnx.backend.test.runner  # noqa: F401
    backend = None
    try:
        backend = importlib.import_module(backend_name)
        if hasattr(backend, "library"):  # plaidml's: libplaidml and libplaidml_onnx, once
            backend.library()  # (a failed library search is slow: not again per case)
    except Exception as e:  # noqa: BLE001 - reported by every case
        _import_error, backend = e, None
    protocol.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        case = json.loads(line)
        print("--- %s" % case["name"], file=sys.stderr, flush=True)
        start = time.monotonic()
        result = run_case(case, device, backend)
        result["seconds"] = round(time.monotonic() - start, 4)
        protocol.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
