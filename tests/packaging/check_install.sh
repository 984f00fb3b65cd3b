#!/usr/bin/env bash
# Installs the build into a scratch prefix, then, with no LD_LIBRARY_PATH anywhere:
#   - runs the installed `plaidml` tool (its RUNPATH must find libplaidml.so.0 through $ORIGIN);
#   - builds and runs examples/matmul.c through pkg-config, and through the CMake package
#     (find_package(plaidml)) together with a C++ program on plaidml.hpp, once with the
#     compiler's default C++ standard and once asking for C++14 (the package must lift it to 17).
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir=$(ls -d "$prefix"/lib*/ | head -1)
libdir=${libdir%/}
unset LD_LIBRARY_PATH
export PKG_CONFIG_PATH=$libdir/pkgconfig

runpath=$(readelf -d "$prefix/bin/plaidml" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
case "$runpath" in
  '$ORIGIN/../'*) ;;
  *) echo "FAIL: installed bin/plaidml has RUNPATH '$runpath', expected \$ORIGIN/../<libdir>"; exit 1 ;;
esac
"$prefix/bin/plaidml" version
"$prefix/bin/plaidml" devices | tee "$work/devices.out"
grep -q 'cpu:0' "$work/devices.out" || { echo "FAIL: installed plaidml lists no cpu:0"; exit 1; }

# A prefix outside the loader's paths: the user adds an rpath, as for any such library.
# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror -o "$work/matmul_pc" "$src/examples/matmul.c" \
  $(pkg-config --cflags --libs plaidml) -Wl,-rpath,"$(pkg-config --variable=libdir plaidml)"
"$work/matmul_pc" | tee "$work/pc.out"

# The ONNX importer, when built: its own pkg-config file (which requires plaidml's).
onnx_model=$src/tests/data/onnx/add_relu.onnx
if [ -f "$libdir/pkgconfig/plaidml-onnx.pc" ]; then
  # shellcheck disable=SC2046
  cc -std=c99 -Wall -Werror -o "$work/onnx_run_pc" "$src/examples/onnx_run.c" \
    $(pkg-config --cflags --libs plaidml-onnx) -Wl,-rpath,"$(pkg-config --variable=libdir plaidml)"
  "$work/onnx_run_pc" "$onnx_model" batch=2 | tee "$work/onnx-pc.out"
  grep -q "Y: f32\[2, 3\] = 0 0 1 2 3 0" "$work/onnx-pc.out" ||
    { echo "FAIL: onnx_run through pkg-config printed the wrong values"; exit 1; }
fi

for standard in default 14; do
  consumer=$work/consumer-$standard
  args=(-DCMAKE_PREFIX_PATH="$prefix" -DPLAIDML_EXAMPLE="$src/examples/matmul.c"
        -DPLAIDML_ONNX_EXAMPLE="$src/examples/onnx_run.c")
  [ "$standard" = default ] || args+=(-DCMAKE_CXX_STANDARD="$standard")
  cmake -S "$src/tests/packaging/consumer" -B "$consumer" -G Ninja "${args[@]}" \
    >"$consumer.log" 2>&1 || { cat "$consumer.log"; exit 1; }
  cmake --build "$consumer" >>"$consumer.log" 2>&1 || { cat "$consumer.log"; exit 1; }
  "$consumer/hpp_consumer"
  "$consumer/matmul_consumer" | tee "$work/cmake-$standard.out"
  if [ -x "$consumer/onnx_consumer" ]; then
    "$consumer/onnx_consumer" "$onnx_model" batch=2 | grep -q "Y: f32\[2, 3\] = 0 0 1 2 3 0" ||
      { echo "FAIL: onnx_run through find_package(plaidml COMPONENTS onnx)"; exit 1; }
  fi
  # Timings differ between runs; everything else must match.
  cmp <(grep -v "time" "$work/pc.out") <(grep -v "time" "$work/cmake-$standard.out")
done
echo "ok: the installed tool runs, and the installed tree works through pkg-config and" \
     "find_package(plaidml) (C and C++, default and C++14 consumers, the ONNX importer when" \
     "built), without LD_LIBRARY_PATH"
