#!/usr/bin/env bash
# Developer shortcut: rebuilds only libplaidml_onnx.so into OUT (default build-onnx-dev/) with
# make, against an existing build's libplaidml.so (BUILD, default build/), so several people can
# iterate on converters at once without sharing a CMake build folder. Incremental per file.
#   scripts/dev/onnx-quick-build.sh [OUT] [BUILD]   -> OUT/libplaidml_onnx.so
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:-$root/build-onnx-dev}")
build=$(realpath -m "${2:-$root/build}")
mkdir -p "$out"
cat >"$out/Makefile" <<MK
SRC := $root/src/frontend/onnx
SRCS := \$(wildcard \$(SRC)/*.cc)
OBJS := \$(patsubst \$(SRC)/%.cc,$out/%.o,\$(SRCS))
CXXFLAGS := -std=c++20 -O1 -g1 -fPIC -fvisibility=hidden -Wall -Wextra -DONNX_ML=1 -DONNX_NAMESPACE=onnx -DFMT_HEADER_ONLY=1 -I$root/include -MMD -MP
$out/libplaidml_onnx.so: \$(OBJS) \$(SRC)/plaidml_onnx.map
	g++ -shared -fuse-ld=lld -o \$@ \$(OBJS) -Wl,--version-script=\$(SRC)/plaidml_onnx.map -L$build/src/capi -lplaidml -Wl,-rpath,$build/src/capi -lonnx_proto -lprotobuf
$out/%.o: \$(SRC)/%.cc
	g++ \$(CXXFLAGS) -c \$< -o \$@
-include \$(OBJS:.o=.d)
MK
make -s -C "$out" -j"${JOBS:-2}"
echo "$out/libplaidml_onnx.so"
