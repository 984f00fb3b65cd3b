"""plaidml's Python binding: library, devices, contexts, Tile programs, running, errors."""
import os
import subprocess
import sys
import unittest

import numpy as np

import plaidml

MATMUL = "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }"


class LibraryTest(unittest.TestCase):
    def test_version(self):
        self.assertRegex(plaidml.version(), r"^\d+\.\d+\.\d+$")

    def test_missing_library_is_a_clear_error(self):
        env = dict(os.environ, PLAIDML_LIBRARY="/nonexistent/libplaidml.so")
        code = "import plaidml\ntry:\n  plaidml.version()\nexcept ImportError as e:\n  print(e)"
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout
        self.assertIn("/nonexistent/libplaidml.so", out)
        self.assertIn("PLAIDML_LIBRARY", out)


class DeviceTest(unittest.TestCase):
    def test_devices_lists_cpu(self):
        devs = plaidml.devices()
        self.assertTrue(any(d.id == "cpu:0" and d.available for d in devs), devs)
        for d in devs:
            self.assertIsInstance(d.name, str)
            self.assertEqual(d.reason == "", d.available)

    def test_context_device(self):
        ctx = plaidml.Context(device="cpu:0", num_threads=2, cache_dir="")
        self.assertEqual(ctx.device, "cpu:0")
        self.assertEqual(ctx.cache_dir, "")

    def test_unknown_device(self):
        with self.assertRaises(plaidml.NotFoundError) as cm:
            plaidml.Context(device="nosuch:7")
        self.assertIn("nosuch:7", str(cm.exception))
        self.assertIn("cpu:0", cm.exception.message)  # lists the available ids

    def test_stats_count_compiles_and_hits(self):
        ctx = plaidml.Context()
        p = plaidml.Program.from_tile(MATMUL)
        a = np.ones((2, 3), np.float32)
        ctx.run(p, {"A": a, "B": a.T.copy()})
        ctx.run(p, {"A": a, "B": a.T.copy()})
        s = ctx.stats()
        self.assertEqual(s["compiles"], 1)
        self.assertEqual(s["cache_hits"], 1)

    def test_memory_figures_before_running(self):
        ctx = plaidml.Context()
        p = plaidml.Program.from_tile(MATMUL)
        m = ctx.memory(p, {"A": ([2, 3], np.float32), "B": ([3, 2], np.float32)})
        self.assertEqual((m["inputs_bytes"], m["outputs_bytes"], m["arena_bytes"]), (48, 16, 0))
        self.assertEqual(m["peak_bytes"], 64)
        self.assertEqual(ctx.stats()["compiles"], 1)

    def test_memory_limit_refuses_a_run_before_allocating(self):
        # C is 6553600 x 4 float32: 100 MiB, over a 64 MiB limit.
        p = plaidml.Program.from_tile(
            "function (A[N]) -> (C) { C[i, j : 6553600, N] = +(A[j]); }")
        ctx = plaidml.Context(memory_limit=64 << 20)
        m = ctx.memory(p, {"A": ([4], np.float32)})
        self.assertEqual((m["peak_bytes"], m["budget_bytes"]), ((100 << 20) + 16, 64 << 20))
        with self.assertRaises(plaidml.OutOfMemoryError) as cm:
            ctx.run(p, {"A": np.ones(4, np.float32)})
        self.assertIsInstance(cm.exception, MemoryError)
        self.assertEqual(cm.exception.message,
                         "running the program on cpu:0 needs 100.0 MiB (inputs 16 B, outputs "
                         "100.0 MiB, intermediates 0 B, constants 0 B), but the context's memory "
                         "limit is 64.0 MiB (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)")
        # The context still runs what fits.
        small = plaidml.Program.from_tile("function (A[N]) -> (B) { B = A * 2; }")
        np.testing.assert_array_equal(ctx.run(small, {"A": np.arange(3, dtype=np.float32)})["B"],
                                      [0, 2, 4])
        with self.assertRaises(plaidml.InvalidArgumentError) as cm:
            plaidml.Context(memory_limit=-1)
        self.assertIn("PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT must be a number of bytes >= 0",
                      cm.exception.message)

    def test_profile_records_the_compile_and_each_kernel_run(self):
        import json
        ctx = plaidml.Context()
        p = plaidml.Program.from_tile(MATMUL)
        a = np.ones((2, 3), np.float32)
        ctx.set_profiling()
        np.testing.assert_array_equal(ctx.run(p, {"A": a, "B": a.T.copy()})["C"],
                                      np.full((2, 2), 3, np.float32))
        ctx.run(p, {"A": a, "B": a.T.copy()})
        events = json.loads(ctx.profile_trace())["traceEvents"]
        kinds = [e["cat"] for e in events if e["ph"] == "X"]
        self.assertEqual(kinds.count("compile"), 1)
        self.assertEqual(kinds.count("kernel"), 2)
        self.assertIn("kernels: 1 distinct", ctx.profile_summary())
        ctx.profile_clear()
        self.assertFalse([e for e in json.loads(ctx.profile_trace())["traceEvents"]
                          if e["ph"] == "X"])


class ProgramTest(unittest.TestCase):
    def test_names_and_print_round_trip(self):
        p = plaidml.Program.from_tile(MATMUL)
        self.assertEqual(p.inputs, ["A", "B"])
        self.assertEqual(p.outputs, ["C"])
        text = p.print()
        self.assertIn("+(A[i, k] * B[k, j])", text)
        self.assertEqual(plaidml.Program.from_tile(text).print(), text)

    def test_run_matmul(self):
        rng = np.random.default_rng(0)
        a = rng.standard_normal((3, 5)).astype(np.float32)
        b = rng.standard_normal((5, 2)).astype(np.float32)
        out = plaidml.run(plaidml.Program.from_tile(MATMUL), {"A": a, "B": b})
        self.assertEqual(list(out), ["C"])
        self.assertEqual(out["C"].dtype, np.float32)
        np.testing.assert_allclose(out["C"], a @ b, rtol=1e-5, atol=1e-5)

    def test_non_contiguous_inputs_are_copied(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        out = plaidml.run(plaidml.Program.from_tile(MATMUL), {"A": a.T, "B": a[:, ::2]})
        np.testing.assert_allclose(out["C"], a.T @ a[:, ::2])

    def test_multiple_outputs_and_scalars(self):
        p = plaidml.Program.from_tile(
            "function (X[N], S[]) -> (T, Y) { T[] = +(X[i]); Y = X * S; }")
        out = plaidml.run(p, {"X": np.array([1, 2, 3], np.float64), "S": np.array(2.0)})
        self.assertEqual(list(out), ["T", "Y"])
        self.assertEqual(out["T"].shape, ())
        self.assertEqual(out["T"], 6.0)
        np.testing.assert_array_equal(out["Y"], [2, 4, 6])

    def test_dtype_round_trips(self):
        p = plaidml.Program.from_tile("function (X) -> (Y) { Y = X; }")
        for dt in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                   np.uint32, np.uint64, np.float16, np.float32, np.float64):
            with self.subTest(dtype=dt):
                x = (np.arange(6).reshape(2, 3) % 2 if dt is np.bool_
                     else np.arange(6).reshape(2, 3)).astype(dt)
                y = plaidml.run(p, {"X": x})["Y"]
                self.assertEqual(y.dtype, np.dtype(dt))
                np.testing.assert_array_equal(y, x)

    def test_bfloat16_outputs_come_back_as_float32(self):
        p = plaidml.Program.from_tile("function (X) -> (Y) { Y = as_bfloat(X, 16); }")
        y = plaidml.run(p, {"X": np.array([1.5, -2.0, 3.0], np.float32)})["Y"]
        self.assertEqual(y.dtype, np.float32)
        np.testing.assert_array_equal(y, [1.5, -2.0, 3.0])

    def test_rank0_and_python_scalars(self):
        p = plaidml.Program.from_tile("function (X[]) -> (Y) { Y = X + 1; }")
        y = plaidml.run(p, {"X": 41})["Y"]
        self.assertEqual(y.shape, ())
        self.assertEqual(int(y), 42)


class ErrorTest(unittest.TestCase):
    def test_parse_error_has_line_and_column(self):
        with self.assertRaises(plaidml.ParseError) as cm:
            plaidml.Program.from_tile("function (A[M, K]) -> (C) {\n  C = A +;\n}")
        e = cm.exception
        self.assertEqual(e.status, 2)
        self.assertEqual(e.status_name, "PLAIDML_STATUS_PARSE_ERROR")
        self.assertRegex(e.message, r"^2:\d+: ")
        self.assertIsInstance(e, ValueError)
        self.assertIsInstance(e, plaidml.PlaidMLError)

    def test_unknown_function_is_not_found(self):
        with self.assertRaises(plaidml.NotFoundError) as cm:
            plaidml.Program.from_tile("function (A) -> (C) { C = frobnicate(A); }")
        self.assertIn("frobnicate", cm.exception.message)
        self.assertRegex(cm.exception.message, r"^1:\d+: ")

    def test_wrong_input_shape_is_a_type_error(self):
        p = plaidml.Program.from_tile(MATMUL)
        with self.assertRaises(plaidml.TypeMismatchError) as cm:
            plaidml.run(p, {"A": np.ones((2, 3), np.float32), "B": np.ones((4, 2), np.float32)})
        self.assertIsInstance(cm.exception, TypeError)
        self.assertIn("'K'", cm.exception.message)
        self.assertIn("3", cm.exception.message)
        self.assertIn("4", cm.exception.message)

    def test_missing_and_unknown_inputs(self):
        p = plaidml.Program.from_tile(MATMUL)
        a = np.ones((2, 2), np.float32)
        with self.assertRaises(plaidml.InvalidArgumentError) as cm:
            plaidml.run(p, {"A": a})
        self.assertIn("B", cm.exception.message)
        with self.assertRaises(plaidml.NotFoundError) as cm:
            plaidml.run(p, {"A": a, "B": a, "Z": a})
        self.assertIn("Z", cm.exception.message)

    def test_unsupported_numpy_dtype(self):
        p = plaidml.Program.from_tile("function (X) -> (Y) { Y = X; }")
        with self.assertRaises(TypeError):
            plaidml.run(p, {"X": np.array(["a"])})

    def test_errors_map_every_status(self):
        for status, cls in ((1, plaidml.InvalidArgumentError), (3, plaidml.TypeMismatchError),
                            (5, plaidml.UnsupportedError), (8, plaidml.InternalError),
                            (9, plaidml.PlaidMLIOError)):
            e = plaidml.errors.from_status(status, "S", "msg")
            self.assertIsInstance(e, cls)
            self.assertEqual((e.status, e.message), (status, "msg"))
        self.assertIn("msg", str(plaidml.errors.from_status(9, "PLAIDML_STATUS_IO_ERROR", "msg")))


if __name__ == "__main__":
    unittest.main()
