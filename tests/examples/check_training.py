"""Runs a training example (examples/train_mlp.c or .py) and checks that its loss goes down.

    check_training.py <command...>

The example must exit 0 and print "step N  loss L" lines whose last loss is below 0.7 times the
first. Before the op library and gradients are in libplaidml (plaidml.has_op, a gradient
probe), it prints why and exits 77, which CTest reports as skipped (SKIP_RETURN_CODE).
"""
import re
import subprocess
import sys

import plaidml

SKIP = 77
OPS = ("matmul", "relu", "categorical_crossentropy")


def gradients_supported():
    p = plaidml.Program.from_tile("function (X[N]) -> (L) { L[] = +(X[i]); }")
    try:
        p.gradient("L", ["X"])
    except plaidml.UnsupportedError as e:
        print("SKIPPED: plaidml_program_gradient is not implemented:", e)
        return False
    return True


def main(argv):
    missing = [op for op in OPS if not plaidml.has_op(op)]
    if missing:
        print("SKIPPED: the op library lacks %s" % ", ".join(missing))
        return SKIP
    if not gradients_supported():
        return SKIP
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    if proc.returncode != 0:
        print("FAILED: %s exited with %d" % (" ".join(argv), proc.returncode))
        return 1
    losses = [float(m) for m in re.findall(r"^step\s+\d+\s+loss\s+(\S+)$", proc.stdout, re.M)]
    if len(losses) < 2:
        print("FAILED: fewer than two 'step N  loss L' lines in the output")
        return 1
    if not losses[-1] < 0.7 * losses[0]:
        print("FAILED: loss %g -> %g did not go down enough" % (losses[0], losses[-1]))
        return 1
    print("OK: loss %g -> %g" % (losses[0], losses[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
