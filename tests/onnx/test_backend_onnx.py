"""onnx's own conformance harness (onnx.backend.test.BackendTest) over plaidml.onnx.backend.

    PYTHONPATH=bindings/python python -m pytest tests/onnx/test_backend_onnx.py -k 'test_abs_'

BackendTest takes no data folder, and needs none: in onnx 1.23 its node tests are built in
memory from onnx.backend.test.case.node (the same 1,884 cases write_node_tests.py writes to
disk), and its model tests (simple, pytorch-converted, pytorch-operator, and `real`, which runs
the light_* models on a dummy input) are read from the data folder inside the onnx wheel. So this
file runs the same cases as run_suite.py --models, but all in one process: a crash ends the run,
and a case the importer refuses is reported as skipped ("unsupported: ..."), not failed.
run_suite.py is the runner CI uses (isolation, timeouts, the unsupported/fail split and the
per-op table); this file is for debugging one case under pytest, and for checking that the
backend meets onnx's harness as other backends do.

Each test exists for the devices "CPU" and "CUDA"; CUDA is always skipped, and "CPU" means the
device named by PLAIDML_ONNX_TEST_DEVICE (CPU, OPENCL, VULKAN) when it is set. The `real` tests
write their dummy inputs under ONNX_HOME (default ~/.onnx): this file points ONNX_HOME at a
folder of the system's temporary directory unless it is set.
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bindings", "python"))
os.environ.setdefault("ONNX_HOME", os.path.join(tempfile.gettempdir(), "plaidml-onnx-home"))

import onnx.backend.test  # noqa: E402

import plaidml.onnx  # noqa: E402
from plaidml.onnx.backend import PlaidmlBackend  # noqa: E402


class PytestBackend(PlaidmlBackend):
    """The plaidml backend, with an import the importer refuses reported as a skipped test."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        try:
            return super().prepare(model, device, **kwargs)
        except plaidml.onnx.Unsupported as e:
            raise unittest.SkipTest("unsupported: %s" % e.message) from None


backend_test = onnx.backend.test.BackendTest(PytestBackend, __name__)
globals().update(backend_test.test_cases)
