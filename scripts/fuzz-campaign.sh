#!/usr/bin/env bash
# Fuzzes the libFuzzer targets of fuzz/ (docs/fuzzing.md) and reports, per target, the
# executions, the coverage libFuzzer reached (cov: edges, ft: features), the corpus and the
# findings. Exits 1 when a target found something (or failed to run), else 0.
#
#   scripts/fuzz-campaign.sh [options] [TARGET...]     (default: every fuzz_* of the build)
#     --build DIR      the build tree with the targets (default build-fuzz: a tree configured
#                      with -DPLAIDML_FUZZ=ON, docs/fuzzing.md says how)
#     --seconds N      fuzzing time per target (default 3600)
#     --workers N      processes per target (default 1); over 1, libFuzzer's -jobs/-workers
#     --out DIR        the growing corpora (DIR/corpus/TARGET), findings
#                      (DIR/artifacts/TARGET) and logs (DIR/logs/TARGET); default
#                      ~/.cache/plaidml-fuzz. Kept between campaigns, so each goes on from the
#                      corpus the last one left; the seeds of fuzz/corpus are read every time.
#     --fresh          empty DIR first (CI: every run starts from the seeds alone)
#     --keep-going     keep fuzzing after a finding (libFuzzer's fork mode, which ignores
#                      crashes, timeouts and out-of-memory inputs once saved); without it a
#                      target stops at its first finding
#
# Every input of fuzz/regressions/TARGET is run before fuzzing starts: a finding fixed once
# fails the campaign if it comes back. A finding is saved as DIR/artifacts/TARGET/crash-<sha1>
# (or leak-, timeout-, oom-); reproduce it with `build-fuzz/fuzz/fuzz_TARGET FILE`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz seconds=3600 workers=1 out=${XDG_CACHE_HOME:-$HOME/.cache}/plaidml-fuzz
fresh=0 keep_going=0 targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --fresh) fresh=1; shift ;;
    --keep-going) keep_going=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz-campaign.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
build=$(cd "$build" && pwd)
if [ ${#targets[@]} -eq 0 ]; then
  for bin in "$build"/fuzz/fuzz_*; do [ -x "$bin" ] && targets+=("${bin##*/fuzz_}"); done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz-campaign.sh: no fuzz targets in $build/fuzz (configure with -DPLAIDML_FUZZ=ON)" >&2
  exit 2
fi
if [ "$fresh" = 1 ]; then rm -rf "$out"; fi
mkdir -p "$out" && out=$(cd "$out" && pwd)  # absolute: each target runs in its log folder

# What each target needs besides the defaults. Tile text is capped at 4 KB: deeper nesting
# and longer expressions are the recursion work of issue 18, not news from a fuzzer. The
# differential target compiles a program per input (about 0.1 s under ASan), so its timeout
# is the hang detector of the JIT's loops.
target_flags() {
  case $1 in
    tile_text) echo "-max_len=4096 -dict=$root/fuzz/tile_text.dict -timeout=10" ;;
    builder_calls) echo "-max_len=2048 -timeout=20" ;;
    differential) echo "-max_len=512 -timeout=20" ;;
    onnx_import) echo "-max_len=65536 -timeout=20" ;;
    cache_entry) echo "-max_len=65536 -timeout=10" ;;
    *) echo "" ;;
  esac
}

# The environment of every run: no disk cache of the user's, no GPU driver (the targets use
# the CPU; a driver's own allocations would read as leaks), failed allocations return NULL
# as in the tests (scripts/test.sh), and UBSan findings stop the run.
export PLAIDML_CACHE_DIR= VK_DRIVER_FILES=/nonexistent/no_vulkan_driver.json
export OCL_ICD_VENDORS=/nonexistent/no_opencl_vendors
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export LSAN_OPTIONS=suppressions=$root/tests/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# fuzz_one TARGET: runs it, leaves its log in $out/logs/TARGET/fuzz.log.
fuzz_one() {
  local t=$1 bin=$build/fuzz/fuzz_$1
  local corpus=$out/corpus/$t artifacts=$out/artifacts/$t logs=$out/logs/$t
  mkdir -p "$corpus" "$artifacts" "$logs"
  local inputs=("$corpus")
  for dir in "$root/fuzz/corpus/$t" "$root/fuzz/regressions/$t"; do
    [ -d "$dir" ] && inputs+=("$dir")
  done
  # shellcheck disable=SC2046
  local args=(-max_total_time="$seconds" -artifact_prefix="$artifacts/" -print_final_stats=1
              $(target_flags "$t"))
  if [ "$keep_going" = 1 ]; then
    args+=(-fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  elif [ "$workers" -gt 1 ]; then
    args+=(-jobs="$workers" -workers="$workers")
  fi
  # Jobs write fuzz-N.log into the working folder.
  (cd "$logs" && "$bin" "${args[@]}" "${inputs[@]}") >"$logs/fuzz.log" 2>&1
}

# summary TARGET STATUS: one line of the table from the target's logs.
summary() {
  local t=$1 status=$2 logs=$out/logs/$1 last execs cov ft corpus findings
  last=$(cat "$logs"/*.log | grep -aE '^#[0-9]+' | grep -a 'cov: ' | tail -1 || true)
  execs=$(cat "$logs"/*.log | sed -n 's/^stat::number_of_executed_units: //p' |
          awk '{s += $1} END {print s + 0}')
  if [ "$execs" = 0 ]; then execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p'); fi
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corpus=$(find "$out/corpus/$t" -type f | wc -l)
  findings=$(find "$out/artifacts/$t" -type f \( -name 'crash-*' -o -name 'leak-*' \
             -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf 'fuzz: %-14s %6s s %10s execs  cov %6s  ft %7s  corpus %6s  findings %s%s\n' "$t" \
    "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$findings" \
    "$([ "$status" = 0 ] || echo "  (exit $status: $logs/fuzz.log)")"
  [ "$findings" = 0 ] && [ "$status" = 0 ]
}

lines=() failed=0
for t in "${targets[@]}"; do
  if [ ! -x "$build/fuzz/fuzz_$t" ]; then
    lines+=("fuzz: $t: no $build/fuzz/fuzz_$t"); failed=1; continue
  fi
  echo "fuzz: $t for $seconds s ($workers worker(s); log $out/logs/$t/fuzz.log)"
  status=0
  fuzz_one "$t" || status=$?
  if [ "$status" != 0 ]; then tail -n 40 "$out/logs/$t/fuzz.log"; fi
  line=$(summary "$t" "$status") || failed=1
  lines+=("$line")
done
echo "=== fuzz results (findings: $out/artifacts) ==="
printf '%s\n' "${lines[@]}"
find "$out/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
  -o -name 'oom-*' \) | sed 's/^/finding: /'
exit $failed
