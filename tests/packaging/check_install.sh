#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds and runs examples/matmul.c against it
# twice: through pkg-config, and through the CMake package (find_package(plaidml)).
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir=$(ls -d "$prefix"/lib*/ | head -1)
export PKG_CONFIG_PATH=$libdir/pkgconfig
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror -o "$work/matmul_pc" "$src/examples/matmul.c" $(pkg-config --cflags --libs plaidml)
"$work/matmul_pc" | tee "$work/pc.out"

cmake -S "$src/tests/packaging/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DPLAIDML_EXAMPLE="$src/examples/matmul.c" >"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; exit 1; }
"$work/consumer/matmul_consumer" | tee "$work/cmake.out"
# Timings differ between runs; everything else must match.
cmp <(grep -v "time" "$work/pc.out") <(grep -v "time" "$work/cmake.out")
echo "ok: installed tree works through pkg-config and find_package(plaidml)"
