#!/usr/bin/env bash
# Makes (or reuses) the Python virtual environment of the ONNX tests and prints the path of its
# python on the last line of stdout; everything else goes to stderr.
#
#   python=$(scripts/onnx-venv.sh | tail -1)
#
# Why a venv: onnx 1.23 (the node test cases) and onnxruntime come only from PyPI; Debian's
# python3-onnx is 1.12. The venv lives outside the clone, so CI clones and build trees share it:
#   ${PLAIDML_ONNX_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/plaidml-ci/onnx-venv}
# It is made from PLAIDML_ONNX_PYTHON if set, else the first of `python3` on the PATH and
# /usr/bin/python3 whose venv and ensurepip modules work (Debian's needs python3-venv for that).
# A stamp file holds a hash of tests/onnx/requirements.txt and the base interpreter: a second
# call with the same requirements runs no pip (about 0.1 s); a changed file reinstalls. A lock
# (flock) keeps two concurrent calls (two build trees' CTest fixtures) from racing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
requirements=$root/tests/onnx/requirements.txt
venv=${PLAIDML_ONNX_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/plaidml-ci/onnx-venv}
log() { echo "onnx-venv: $*" >&2; }

pick_python() {
  local candidates=() c
  if [ -n "${PLAIDML_ONNX_PYTHON:-}" ]; then
    candidates=("$PLAIDML_ONNX_PYTHON")
  else
    c=$(command -v python3 || true)
    [ -n "$c" ] && candidates+=("$c")
    candidates+=(/usr/bin/python3)
  fi
  for c in "${candidates[@]}"; do
    if "$c" -c 'import sys, venv, ensurepip; assert sys.version_info >= (3, 11)' 2>/dev/null; then
      # A pyenv shim is a script: record the real interpreter, which the venv will point at.
      "$c" -c 'import os, sys; print(os.path.realpath(sys.executable))'
      return 0
    fi
    log "skipping $c (needs Python >= 3.11 with the venv and ensurepip modules)"
  done
  return 1
}

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

base=$(pick_python) || { log "no usable python3 found (apt-get install python3-venv)"; exit 1; }
stamp_want=$(cat "$requirements" <(echo "$base") <("$base" -V 2>&1) | sha256sum | cut -d' ' -f1)
stamp=$venv/.plaidml-requirements.sha256
python=$venv/bin/python

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_want" ] && "$python" -c '' 2>/dev/null; then
  log "up to date: $venv"
  echo "$python"
  exit 0
fi

start=$(date +%s%N)
venv_base() { "$python" -c 'import os, sys; print(os.path.realpath(sys._base_executable))'; }
if ! "$python" -c '' 2>/dev/null || [ "$(venv_base 2>/dev/null)" != "$base" ]; then
  log "creating $venv with $base"
  rm -rf "$venv"
  "$base" -m venv "$venv"
fi
rm -f "$stamp"
log "installing $requirements"
"$python" -m pip install --disable-pip-version-check --no-input -q -r "$requirements" >&2
"$python" -c 'import numpy, onnx, onnxruntime, pytest' >&2
echo "$stamp_want" >"$stamp"
log "ready in $(( ($(date +%s%N) - start) / 1000000 )) ms: $venv"
echo "$python"
