#!/usr/bin/env bash
# Runs a Python script of tests/onnx with the ONNX test venv's python (scripts/onnx-venv.sh
# makes it, or finds it up to date in about 0.5 s, without pip):
#   tests/onnx/with_venv.sh run_suite.py --device OPENCL --one-per-op
# Why a wrapper: CTest tests cannot hand each other values, so each test asks the (idempotent,
# locked) venv script for the interpreter instead of trusting a path fixed at configure time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=$(bash "$here/../../scripts/onnx-venv.sh" | tail -n 1)
script=$1
shift
case $script in /*) ;; *) script=$here/$script ;; esac
exec "$python" "$script" "$@"
