"""Runs a training example (examples/train_mlp.c or .py) and checks that its loss goes down.

    check_training.py <command...>

The example must exit 0 and print "step N  loss L" lines whose last loss is below 0.7 times the
first.
"""
import re
import subprocess
import sys

def main(argv):
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
