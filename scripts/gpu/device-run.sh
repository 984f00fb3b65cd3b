#!/usr/bin/env bash
# The one script to run on the GPU machine, from the repository root, after scripts/gpu/pack.sh
# made .devrun/plaidml-gpu.tar.xz here and the tarball was carried along:
#
#   OUT=/some/dir bash scripts/gpu/device-run.sh
#
# Steps (each runs under its own timeout and the next runs whatever happened; the exit codes are
# summarised at the end, and the script exits 1 if any step failed):
#   1. device info: nvidia-smi, `plaidml devices`
#   2. the conformance suite on each device          -> $OUT/conformance.<device>.txt
#   3. `plaidml run` of examples/tile/matmul.tile on each device
#   4. plaidml_gpu_bench --device D, for each device  -> $OUT/plaidml_gpu.<device>.json
#   4b. plaidml_clblast_bench: CLBlast's sgemm on the same OpenCL driver -> $OUT/clblast_gpu.json
#   5. bench/torch_gpu.py (whichever python has torch) -> $OUT/torch_gpu.json
#   6. bench/compare_gpu.py                          -> $OUT/gpu_table.md
#   7. (STEPS=onnx-models, not by default) real models exported there, onnxruntime against
#      plaidml on the CPU and each device            -> $OUT/onnx_models.{json,md}
#      (ONNX_MODELS: which, ONNX_EXPORT_ARGS=--no-dynamo: TorchScript exports only,
#      ONNX_DEVICES: which devices)
#   8. (STEPS=onnx-suite, not by default) onnx's node tests on the GPU devices
#                                                    -> $OUT/onnx_suite_<device>.json
#   9. (STEPS=bench-models, not by default) whole models beside onnxruntime on the CPU and each
#      device, on onnx-models' exports              -> $OUT/bench_models_<device>.{json,md}
# The devices: PLAIDML_GPU_DEVICES (default "opencl:0 vulkan:0"); <device> is the id without
# its colon (opencl0). Everything printed also goes to $OUT/device-run.log; at the end every
# other file of $OUT is moved into $OUT/results.tar.gz (BUNDLE_OUT=0: not). STEPS="bench torch
# compare" runs a subset.
# Without NVIDIA's OpenCL library (e.g. here, with PoCL) it uses the machine's own ICDs.
# shellcheck disable=SC2317  # the step functions run through `bash -c` (export -f)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT"
tarball=${PLAIDML_GPU_TARBALL:-$root/.devrun/plaidml-gpu.tar.xz}
devices=${PLAIDML_GPU_DEVICES:-opencl:0 vulkan:0}
# Per-step limits in seconds. With each case warmed up for a second, the bench, clblast and
# torch steps took 141, 9 and 41 s on the H200 (2026-12-03); the limits leave room for a slower
# run, and a step that runs past its limit does not stop the next.
t_conformance=${T_CONFORMANCE:-200}
t_cli=${T_CLI:-45}
t_bench=${T_BENCH:-240}
t_torch=${T_TORCH:-120}
bench_args=${BENCH_ARGS:---warmup 3 --repeat 20 --max-seconds 10}
# STEPS: which steps to run (a subset lets one run be split over two remote calls).
steps=${STEPS:-device-info conformance cli-run bench clblast torch compare}
torch_args=${TORCH_ARGS:---warmup 3 --repeat 20}

exec > >(tee "$OUT/device-run.log") 2>&1
summary=()
failed=0

# step NAME TIMEOUT COMMAND...: runs it, prints and records its exit status and duration.
step() {
  local name=$1 limit=$2
  shift 2
  echo
  echo "=== $name (limit ${limit}s)"
  local start=$SECONDS
  timeout -k 10 "$limit" "$@"
  local rc=$?
  [ $rc = 124 ] && echo "=== $name: timed out after ${limit}s"
  record "$name" $rc $start
}

record() {
  [ "$2" = 0 ] || failed=1
  summary+=("$(printf '%-14s rc=%-4s %4ss' "$1" "$2" $((SECONDS - $3)))")
}

unpack() {
  [ -f "$tarball" ] || { echo "no $tarball: run scripts/gpu/pack.sh first and carry it"; return 1; }
  work=$(mktemp -d /tmp/plaidml-gpu.XXXXXX)
  tar -xJf "$tarball" -C "$work" || return 1
  pkg=$work/plaidml-gpu
  cat "$pkg/BUILD-INFO"
}

# NVIDIA's driver ships libnvidia-opencl but registers no ICD there: register it in a folder of
# our own. Elsewhere (PoCL here) the machine's /etc/OpenCL/vendors stays in charge.
setup_opencl_icd() {
  local nvidia=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
  if [ -e "$nvidia" ]; then
    mkdir -p /tmp/vendors
    echo "$nvidia" >/tmp/vendors/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/vendors
    echo "OpenCL ICD: $nvidia (OCL_ICD_VENDORS=/tmp/vendors)"
  else
    echo "OpenCL ICD: no NVIDIA OpenCL library; using ${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"
  fi
}

# NVIDIA's Vulkan driver is installed but not registered with a loader. Its manifest names
# libGLX_nvidia.so.0, which returns no vkCreateInstance in this headless container (no X
# server; the loader then reports VK_ERROR_INCOMPATIBLE_DRIVER). The EGL build of the driver,
# libEGL_nvidia.so.0, exports the same Vulkan ICD entry points and works headless. So register
# that with the carried loader (libvulkan1) through VK_DRIVER_FILES.
setup_vulkan_icd() {
  local egl=/usr/local/nvidia/lib64/libEGL_nvidia.so.0 manifest=$work/nvidia_egl_icd.json
  if [ -e "$egl" ]; then
    printf '{"file_format_version": "1.0.1", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
      "$egl" >"$manifest"
    export VK_DRIVER_FILES=$manifest
    echo "Vulkan driver: $egl (VK_DRIVER_FILES=$manifest)"
  else
    echo "Vulkan driver: no NVIDIA EGL driver library; using the loader's defaults"
  fi
}

# The conformance binary reads its unsupported lists from the source path compiled in at build
# time. Where this checkout lives elsewhere, make that path lead to this checkout's lists.
setup_unsupported_dir() {
  local built here=$root/tests/conformance/unsupported
  built=$(sed -n 's/^conformance_unsupported_dir=//p' "$pkg/BUILD-INFO")
  export PLAIDML_CONFORMANCE_UNSUPPORTED_DIR=$here
  if [ -n "$built" ] && [ "$built" != "$here" ] && [ ! -e "$built" ]; then
    mkdir -p "$(dirname "$built")" && ln -s "$here" "$built" &&
      echo "linked $built -> $here (the path compiled into the conformance binary)"
  fi
}

# Our binaries get the carried libraries; other programs (python, torch) keep the system's.
with_libs() {
  local deps=$pkg/deps
  env LD_LIBRARY_PATH="$pkg/lib:$deps/usr/lib/x86_64-linux-gnu:$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    PLAIDML_PLUGIN_PATH="$pkg/lib/plaidml/devices" "$@"
}

device_info() {
  echo "glibc here: $(ldd --version | head -n 1 | awk '{print $NF}') (the binaries need the build's, $(sed -n 's/^glibc=//p' "$pkg/BUILD-INFO"), or newer)"
  if command -v nvidia-smi >/dev/null; then nvidia-smi; else echo "nvidia-smi: not on this machine"; fi
  with_libs "$pkg/bin/plaidml" --version
  with_libs "$pkg/bin/plaidml" devices
}

# One process per family and device, all at once (the GPU machine has many cores; the driver's
# compiler is the bottleneck), each line-buffered with durations: a run cut off by its timeout
# still shows how far every family got. conformance.<device>.txt holds a device's families.
conformance() {
  local families rc=0 pids=() i device
  mapfile -t families < <(with_libs "$pkg/bin/plaidml_conformance_test" --list-test-cases \
    --no-intro=true --no-version=true | grep '^conformance: ')
  for device in $devices; do
    i=0
    for family in "${families[@]}"; do
      PLAIDML_CONFORMANCE_DEVICES=$device PLAIDML_TEST_DATA=$root/tests/data \
        with_libs stdbuf -oL -eL "$pkg/bin/plaidml_conformance_test" --duration=true \
        "--test-case=$family" >"$OUT/conformance.${device//:/}.$i.txt" 2>&1 &
      pids+=($!)
      i=$((i + 1))
    done
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  for device in $devices; do
    local stem=$OUT/conformance.${device//:/}
    cat "$stem".[0-9]*.txt >"$stem.txt" && rm -f "$stem".[0-9]*.txt
    echo "--- $device"
    grep -E "TEST CASE|test cases|assertions|Status|ERROR" "$stem.txt" | tail -n 60
  done
  return "$rc"
}

cli_run() {
  local device rc=0
  for device in $devices; do
    with_libs "$pkg/bin/plaidml" run --device "$device" "$root/examples/tile/matmul.tile" \
      --input A=random:f32:256x512 --input B=random:f32:512x128 --repeat 5 || rc=1
  done
  return "$rc"
}

# One device after the other, so that they do not share the GPU while timed.
bench() {
  local device rc=0
  for device in $devices; do
    # shellcheck disable=SC2086
    with_libs "$pkg/bin/plaidml_gpu_bench" --device "$device" $bench_args \
      >"$OUT/plaidml_gpu.${device//:/}.json" || rc=1
  done
  return "$rc"
}

# CLBlast on the OpenCL device the plaidml bench used (the first GPU), matmuls 1024 to 8192.
clblast_bench() {
  # shellcheck disable=SC2086
  with_libs "$pkg/bin/plaidml_clblast_bench" ${CLBLAST_ARGS:---warmup 3 --repeat 20 --max-seconds 10} \
    >"$OUT/clblast_gpu.json"
}

torch_python() {
  local py
  for py in python3 /opt/torch/.venv/bin/python3 /usr/bin/python3 python; do
    if command -v "$py" >/dev/null && "$py" -c 'import torch' 2>/dev/null; then
      echo "$py"
      return 0
    fi
  done
  return 1
}

torch_bench() {
  local py
  if ! py=$(torch_python); then
    echo "torch: no python here can import torch; skipping the PyTorch baseline"
    : >"$OUT/torch_gpu.json"
    return 3
  fi
  echo "torch: using $py"
  # shellcheck disable=SC2086
  "$py" "$root/bench/torch_gpu.py" $torch_args >"$OUT/torch_gpu.json"
}

# Real models (bench/models): exported there with random weights, run by onnxruntime (the
# oracle) and by plaidml on the CPU and each GPU device -> $OUT/onnx_models.{json,md}.
# The exported files stay in /tmp between calls to a warm machine, so that a second call
# (ONNX_COMPARE_ONLY=file1,file2, or other ONNX_DEVICES) skips the export.
onnx_models() {
  local py models=${ONNX_MODEL_DIR:-/tmp/plaidml-onnx-models}
  py=$(torch_python) || { echo "onnx-models: no python with torch here"; return 3; }
  # shellcheck disable=SC2086  # ONNX_EXPORT_ARGS: e.g. --no-dynamo
  "$py" "$root/bench/models/export_models.py" --out "$models" ${ONNX_MODELS:+--only $ONNX_MODELS} \
    ${ONNX_EXPORT_ARGS:-} || return 1
  cp "$models/manifest.json" "$OUT/onnx_manifest.json"
  cp "$models"/*_tiny*.onnx "$OUT/" 2>/dev/null  # small enough to bring back for debugging
  PYTHONPATH=$root/bindings/python PLAIDML_LIBRARY=$pkg/lib/libplaidml.so.0 \
    PLAIDML_ONNX_LIBRARY=$pkg/lib/libplaidml_onnx.so.0 with_libs "$py" \
    "$root/bench/models/compare_onnx.py" --models "$models" \
    --devices "${ONNX_DEVICES:-cpu:0,${devices// /,}}" ${ONNX_COMPARE_ONLY:+--only $ONNX_COMPARE_ONLY} \
    --jobs "${ONNX_JOBS:-3}" --timeout "${ONNX_TIMEOUT:-240}" ${ONNX_COMPARE_ARGS:-} \
    --json "$OUT/onnx_models.json" --markdown "$OUT/onnx_models.md"
}

# Whole models beside onnxruntime (bench/models/bench_models.py), exported here unless an
# earlier step on this machine did -> $OUT/bench_models_<device>.{json,md}.
# BENCH_MODELS: which (default resnet50,mobilenet_v3,bert_base); BENCH_DEVICES: which plaidml
# devices (default the CPU and every GPU device); BENCH_THREADS for the CPU (default all cores);
# BENCH_RUNS timed runs per process, BENCH_ROUNDS processes of each runtime, alternating.
bench_models() {
  local py models=${ONNX_MODEL_DIR:-/tmp/plaidml-onnx-models} device providers threads extra
  py=$(torch_python) || { echo "bench-models: no python with onnxruntime here"; return 3; }
  # shellcheck disable=SC2086
  "$py" "$root/bench/models/export_models.py" --out "$models" ${ONNX_EXPORT_ARGS:-} \
    --only "${BENCH_MODELS:-resnet50,mobilenet_v3,bert_base}" >"$OUT/export_models.log" 2>&1 || return 1
  for device in ${BENCH_DEVICES:-cpu:0 $devices}; do
    # Beside a GPU device: onnxruntime's CUDA provider where its build has one (else its CPU
    # provider on every core), and PyTorch eager on CUDA.
    providers=CPUExecutionProvider
    threads=${BENCH_THREADS:-$(nproc)}
    extra=""
    if [ "$device" != cpu:0 ]; then
      providers=CUDAExecutionProvider,CPUExecutionProvider
      extra=--torch
    fi
    PYTHONPATH=$root/bindings/python PLAIDML_LIBRARY=$pkg/lib/libplaidml.so.0 \
      PLAIDML_ONNX_LIBRARY=$pkg/lib/libplaidml_onnx.so.0 with_libs "$py" \
      "$root/bench/models/bench_models.py" --models "$models" \
      --only "${BENCH_MODELS:-resnet50,mobilenet_v3,bert_base}" --threads "$threads" \
      --batch "${BENCH_BATCH:-1,8}" --device "$device" --ort-providers "$providers" \
      --runs "${BENCH_RUNS:-10}" --rounds "${BENCH_ROUNDS:-3}" \
      --timeout "${BENCH_TIMEOUT:-300}" $extra \
      --json "$OUT/bench_models_${device//:/}.json" --markdown "$OUT/bench_models_${device//:/}.md"
  done
}

# A diagnosis script (STEPS=script, SCRIPT=path relative to the repository) run by the python
# that has torch and onnxruntime, with libplaidml, the importer and the plugins in place; its
# output goes to the log. For questions the steps above do not ask.
run_script() {
  local py
  py=$(torch_python) || { echo "script: no python with torch here"; return 3; }
  PYTHONPATH=$root/bindings/python PLAIDML_LIBRARY=$pkg/lib/libplaidml.so.0 \
    PLAIDML_ONNX_LIBRARY=$pkg/lib/libplaidml_onnx.so.0 with_libs "$py" "$root/$SCRIPT"
}

# onnx's node tests on the GPU devices (tests/onnx/run_suite.py), node data written there by
# its onnx -> $OUT/onnx_suite_<device>.json. ONNX_SUITE_ARGS="--one-per-op" for a quick pass.
onnx_suite() {
  local py data=/tmp/plaidml-onnx-node-data device
  py=$(torch_python) || { echo "onnx-suite: no python with onnx here"; return 3; }
  "$py" "$root/tests/onnx/write_node_tests.py" --output "$data" >/dev/null || return 1
  for device in ${ONNX_SUITE_DEVICES:-VULKAN OPENCL}; do
    # shellcheck disable=SC2086
    PYTHONPATH=$root/bindings/python PLAIDML_LIBRARY=$pkg/lib/libplaidml.so.0 \
      PLAIDML_ONNX_LIBRARY=$pkg/lib/libplaidml_onnx.so.0 with_libs "$py" \
      "$root/tests/onnx/run_suite.py" --data-dir "$data" --device "$device" \
      --jobs "${ONNX_SUITE_JOBS:-8}" ${ONNX_SUITE_ARGS:-} --allow-fail \
      --json "$OUT/onnx_suite_${device,,}.json" | tail -n 25
  done
}

compare() {
  local py
  py=$(command -v python3 || command -v python)
  local files=() device
  for device in $devices; do files+=("$OUT/plaidml_gpu.${device//:/}.json"); done
  [ -s "$OUT/clblast_gpu.json" ] && files+=("$OUT/clblast_gpu.json")
  "$py" "$root/bench/compare_gpu.py" "$OUT/torch_gpu.json" "${files[@]}" \
    >"$OUT/gpu_table.md" && cat "$OUT/gpu_table.md"
}

export -f with_libs device_info conformance cli_run bench clblast_bench torch_python torch_bench compare \
  onnx_models onnx_suite bench_models run_script
echo "device-run: $(date -u), root $root, OUT $OUT, devices $devices"
unpack_start=$SECONDS
unpack
unpack_rc=$?
record unpack $unpack_rc $unpack_start
if [ $unpack_rc = 0 ]; then
  export pkg root OUT devices bench_args torch_args work
  setup_opencl_icd
  setup_vulkan_icd
  setup_unsupported_dir
  # NVIDIA's kernel cache per run: the "compile" figures stay cold on a reused machine.
  export CUDA_CACHE_PATH=$work/nv-cache
  wants() { [[ " $steps " == *" $1 "* ]]; }
  wants device-info && step device-info 60 bash -c device_info
  wants conformance && step conformance "$t_conformance" bash -c conformance
  wants cli-run && step cli-run "$t_cli" bash -c cli_run
  wants bench && step bench "$t_bench" bash -c bench
  wants clblast && step clblast "${T_CLBLAST:-90}" bash -c clblast_bench
  wants torch && step torch "$t_torch" bash -c torch_bench
  wants compare && step compare 30 bash -c compare
  wants onnx-models && step onnx-models "${T_ONNX:-480}" bash -c onnx_models
  wants onnx-suite && step onnx-suite "${T_ONNX_SUITE:-300}" bash -c onnx_suite
  wants bench-models && step bench-models "${T_BENCH_MODELS:-420}" bash -c bench_models
  # Last: a diagnosis script may read the models the steps above exported.
  wants script && step script "${T_SCRIPT:-300}" bash -c run_script
else
  echo "device-run: could not unpack $tarball"
fi
echo
echo "=== summary (rc 124 means a step ran past its limit)"
printf '%s\n' "${summary[@]}"
[ -n "${work:-}" ] && rm -rf "$work"
# The device tool brings back only a few files from $OUT: everything but this log goes into one
# archive (BUNDLE_OUT=0 leaves the files as they are).
if [ "${BUNDLE_OUT:-1}" = 1 ]; then
  (cd "$OUT" && find . -maxdepth 1 -type f ! -name device-run.log ! -name results.tar.gz \
    -printf '%P\n' | tar -czf results.tar.gz -T - && find . -maxdepth 1 -type f \
    ! -name device-run.log ! -name results.tar.gz -delete) || echo "device-run: bundling failed"
  echo "device-run: $OUT/results.tar.gz holds the other files: tar -xzf results.tar.gz"
fi
exit $failed
