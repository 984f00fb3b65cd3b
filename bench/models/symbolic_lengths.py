"""One import of a language model with its sequence length symbolic, run at many lengths in one
process beside onnxruntime's one session (issue 37's first target):

    python bench/models/symbolic_lengths.py gpt2.onnx [--lengths 1,2,4,...] [--threads N]

Prints the import time against onnxruntime's session creation, and per length the first run
(compiles included), the kernels compiled for it and those taken from the kernel library
(compiled for an earlier length), and the largest error against onnxruntime
relative to its largest output. Inputs: int64 ids in [0, 1000) (any vocabulary holds them) and
an all-ones attention mask, for whichever of input_ids and attention_mask the model has.
"""
import argparse
import os
import time

import numpy as np

DEFAULT_LENGTHS = ",".join(str(n) for n in (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 128, 144, 233,
                                             256, 377, 512, 610, 700, 800, 900, 987, 1000,
                                             1010, 1015, 1018, 1020, 1021, 1022, 1023, 1024))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--lengths", default=DEFAULT_LENGTHS, help="comma-separated sequence lengths")
    p.add_argument("--threads", type=int, default=0, help="0: each runtime's default")
    return p.parse_args()


def feeds_for(names, length, rng):
    ids = rng.integers(0, 1000, size=(1, length), dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones((1, length), np.int64)}
    return {k: v for k, v in feeds.items() if k in names}


def main():
    args = parse_args()
    if args.threads:
        os.environ["PLAIDML_NUM_THREADS"] = str(args.threads)
    import onnxruntime as ort
    import plaidml
    import plaidml.onnx

    start = time.perf_counter()
    program = plaidml.onnx.load(args.model, cache=False)
    import_s = time.perf_counter() - start
    options = ort.SessionOptions()
    if args.threads:
        options.intra_op_num_threads = args.threads
    start = time.perf_counter()
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    session_s = time.perf_counter() - start
    names = {i.name for i in session.get_inputs()}
    print(f"{os.path.basename(args.model)}: plaidml import {import_s:.3f} s (program text "
          f"{len(str(program))} chars); onnxruntime session {session_s:.3f} s")
    print(f"{'length':>6} {'first run s':>11} {'compiles':>8} {'kernels':>7} {'library':>7} "
          f"{'ort run s':>9} {'rel error':>9}")
    ctx = plaidml.Context()
    rng = np.random.default_rng(0)
    before = ctx.stats()
    for length in (int(n) for n in args.lengths.split(",")):
        feeds = feeds_for(names, length, rng)
        start = time.perf_counter()
        ours = ctx.run(program, feeds)
        first_s = time.perf_counter() - start
        start = time.perf_counter()
        ref = session.run(None, feeds)[0]
        ort_s = time.perf_counter() - start
        out = ours[program.outputs[0]]
        error = float(np.max(np.abs(out - ref)) / max(float(np.max(np.abs(ref))), 1e-30))
        stats = ctx.stats()
        print(f"{length:>6} {first_s:>11.3f} {stats['compiles'] - before['compiles']:>8} "
              f"{stats['kernels_compiled'] - before['kernels_compiled']:>7} "
              f"{stats['kernel_library_hits'] - before['kernel_library_hits']:>7} {ort_s:>9.3f} "
              f"{error:>9.2e}", flush=True)
        before = stats
    total = ctx.stats()
    print(f"in all: {total['compiles']} compiles, {total['kernels_compiled']} kernels compiled, "
          f"{total['kernel_library_hits']} from the library, "
          f"{total['compile_seconds']:.1f} s compiling")


if __name__ == "__main__":
    main()
