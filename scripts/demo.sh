#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the demo: a small convolutional
# network's forward pass (examples/tile/convnet.tile) on random input on the CPU, run twice in one
# process so the second run shows the cached (no compile) time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" "$root/build" -DPLAIDML_BUILD_TESTS=OFF
out=$(mktemp -d)
"$root/build/tools/plaidml" run "$root/examples/tile/convnet.tile" \
  --input I=random:f32:1x32x32x3 --input K1=random:f32:3x3x3x16 --input B1=random:f32:16 \
  --input K2=random:f32:3x3x16x32 --input B2=random:f32:32 \
  --input W=random:f32:32x10 --input B3=random:f32:10 \
  --output-dir "$out" --repeat 5 --summary
echo "outputs written to $out"
