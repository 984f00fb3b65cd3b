#!/usr/bin/env bash
# Builds what the GPU machine runs and packs it into ONE tarball, .devrun/plaidml-gpu.tar.xz:
#
#   plaidml-gpu/lib/libplaidml.so.0                         static LLVM inside: no libLLVM there
#   plaidml-gpu/lib/libplaidml_onnx.so.0                    the ONNX importer (protobuf in deps/)
#   plaidml-gpu/lib/plaidml/devices/libplaidml_device_opencl.so
#   plaidml-gpu/bin/{plaidml, plaidml_gpu_bench, plaidml_clblast_bench, plaidml_conformance_test}
#   plaidml-gpu/deps/...        runtime libraries a base Ubuntu/Debian userland may lack
#                               (libOpenCL.so.1 from ocl-icd-libopencl1, libisl, libgmp), dpkg -x'ed
#   plaidml-gpu/BUILD-INFO      where the conformance suite looks for its unsupported lists
#
# The GPU machine has no LLVM 19, no apt and no network, so everything it needs beyond the
# working tree travels here; scripts/gpu/device-run.sh unpacks and runs it.
#   scripts/gpu/pack.sh            (env: JOBS=2, BUILD_DIR=<repo>/build-gpu)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
jobs=${JOBS:-2}
out_dir=$root/.devrun
stage_root=$out_dir/stage
stage=$stage_root/plaidml-gpu
tarball=$out_dir/plaidml-gpu.tar.xz
debs=$out_dir/debs
# Packages every machine that can run our binaries has (glibc, the C++ runtime, compression).
# Carrying libstdc++ would shadow a newer one there and break other programs, so never do.
base_packages=" libc6 libstdc++6 libgcc-s1 zlib1g libzstd1 "
# Too large to carry, or a sign that LLVM was linked shared after all.
forbidden='libLLVM|libz3|libxml2|libicu'

configure_and_build() {
  echo "== building in $build (Release, static LLVM)"
  mkdir -p "$build"
  # A unity build through ccache, as CI's (scripts/cmake-args.sh): about a third of the time.
  # shellcheck source=scripts/cmake-args.sh
  source "$root/scripts/cmake-args.sh"
  plaidml_cmake_args "$root"
  local launchers=("${PLAIDML_CMAKE_ARGS[@]:3}")  # past -G Ninja -DCMAKE_BUILD_TYPE=...
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPLAIDML_LLVM_STATIC=ON \
    -DCMAKE_UNITY_BUILD=ON "${launchers[@]}" -DPLAIDML_BUILD_BENCH=ON -DPLAIDML_BUILD_TESTS=ON -DPLAIDML_DEVICE_VULKAN=ON \
    >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
  ninja -C "$build" -j"$jobs" plaidml plaidml_onnx plaidml_device_opencl plaidml_device_vulkan \
    plaidml_cli plaidml_conformance_test plaidml_gpu_bench plaidml_clblast_bench
}

# The build-tree path of a target's file (found, not guessed: output folders may move).
built_file() {
  local found
  found=$(find "$build" -name "$1" \( -type f -o -type l \) -not -path '*/CMakeFiles/*' | head -n 1)
  [ -n "$found" ] || { echo "pack.sh: $1 not found under $build" >&2; exit 1; }
  echo "$found"
}

stage_binaries() {
  echo "== staging into $stage"
  rm -rf "$stage_root"
  mkdir -p "$stage/bin" "$stage/lib/plaidml/devices" "$stage/deps"
  cp -L "$(built_file libplaidml.so.0)" "$stage/lib/libplaidml.so.0"
  cp -L "$(built_file libplaidml_onnx.so.0)" "$stage/lib/libplaidml_onnx.so.0"
  cp "$(built_file libplaidml_device_opencl.so)" "$stage/lib/plaidml/devices/"
  cp "$(built_file libplaidml_device_vulkan.so)" "$stage/lib/plaidml/devices/"
  cp "$(built_file plaidml)" "$stage/bin/plaidml"
  cp "$(built_file plaidml_gpu_bench)" "$stage/bin/"
  cp "$(built_file plaidml_clblast_bench)" "$stage/bin/"  # the CLBlast peer (libclblast1 carried)
  cp "$(built_file plaidml_conformance_test)" "$stage/bin/"
  strip --strip-unneeded "$stage"/lib/libplaidml*.so.0 "$stage"/lib/plaidml/devices/*.so \
    "$stage"/bin/*
}

staged_elf_files() {
  echo "$stage"/lib/libplaidml.so.0 "$stage"/lib/libplaidml_onnx.so.0 \
    "$stage"/lib/plaidml/devices/*.so "$stage"/bin/*
}

# Every shared library the staged files load, as resolved on this machine (one path a line).
resolved_libraries() {
  local f
  for f in $(staged_elf_files); do
    LD_LIBRARY_PATH=$stage/lib ldd "$f" | awk '/=>/ && $3 ~ /^\// {print $3}'
  done | grep -v "^$stage/" | sort -u
}

check_no_forbidden() {
  local f bad=0
  for f in $(staged_elf_files); do
    if LD_LIBRARY_PATH=$stage/lib ldd "$f" | grep -E "$forbidden"; then
      echo "pack.sh: $f needs one of $forbidden (is PLAIDML_LLVM_STATIC on?)" >&2
      bad=1
    fi
    if LD_LIBRARY_PATH=$stage/lib ldd "$f" | grep "not found"; then
      echo "pack.sh: $f has unresolved libraries" >&2
      bad=1
    fi
  done
  [ $bad = 0 ] || exit 1
  echo "== no staged file needs libLLVM, libz3, libxml2 or libicu"
}

# The Debian packages that own the libraries above, minus the base ones, plus the OpenCL ICD
# loader and the Vulkan loader (the plugins load libOpenCL.so.1 and libvulkan.so.1, which the
# GPU machine does not have).
packages_to_carry() {
  local lib pkg
  {
    echo ocl-icd-libopencl1
    echo libvulkan1  # the Vulkan plugin dlopens libvulkan.so.1
    for lib in $(resolved_libraries); do
      pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n 1 | cut -d: -f1) ||
        pkg=$(dpkg -S "$lib" 2>/dev/null | head -n 1 | cut -d: -f1) || true
      [ -n "$pkg" ] || { echo "pack.sh: no package owns $lib" >&2; exit 1; }
      case "$base_packages" in *" $pkg "*) ;; *) echo "$pkg" ;; esac
    done
  } | sort -u
}

# apt-get download wants package lists; fetch them once if this machine has none yet.
download_debs() {
  mkdir -p "$debs"
  (cd "$debs" && apt-get download "$@" 2>/dev/null) ||
    { apt-get update -qq && (cd "$debs" && apt-get download "$@"); }
}

stage_runtime_debs() {
  local packages
  packages=$(packages_to_carry)
  echo "== carrying runtime packages: ${packages//$'\n'/ }"
  rm -f "$debs"/*.deb
  # shellcheck disable=SC2086
  download_debs $packages
  local deb
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$stage/deps"; done
  rm -rf "$stage/deps/usr/share" "$stage/deps/etc"
  # shellcheck disable=SC2086
  echo "$packages" >"$stage/deps/PACKAGES"
}

write_build_info() {
  cat >"$stage/BUILD-INFO" <<EOF
built=$(date -u +%Y-%m-%dT%H:%M:%SZ)
build_host=$(uname -n)
glibc=$(ldd --version | head -n 1 | awk '{print $NF}')
conformance_unsupported_dir=$root/tests/conformance/unsupported
EOF
}

pack() {
  echo "== packing $tarball"
  rm -f "$tarball"
  tar -C "$stage_root" -cf - plaidml-gpu | xz -9 -T"$jobs" >"$tarball"
  local bytes
  bytes=$(stat -c %s "$tarball")
  echo "== $tarball: $((bytes / 1024 / 1024)) MiB ($bytes bytes); unpacked: $(du -sh "$stage" | cut -f1)"
  if [ "$bytes" -gt $((60 * 1024 * 1024)) ]; then
    echo "pack.sh: the tarball is over 60 MiB: it will not fit the 64 MiB carry limit" >&2
    exit 1
  fi
}

mkdir -p "$out_dir"
configure_and_build
stage_binaries
check_no_forbidden
stage_runtime_debs
write_build_info
pack
rm -rf "$stage_root"
