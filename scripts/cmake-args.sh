# Sourced by scripts/build.sh and scripts/test.sh: the CMake arguments every build here shares.
# ccache, when installed, keeps its cache outside the clone (CI clones main into a new folder on
# the same machine each time): base_dir makes the paths inside the clone relative, and
# hash_dir=false leaves the working folder out of the hash, so a clone in another folder hits.
plaidml_cmake_args() {
  local root=$1
  PLAIDML_CMAKE_ARGS=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  if command -v ccache >/dev/null 2>&1 && [ "${PLAIDML_CCACHE:-1}" != 0 ]; then
    export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/plaidml-ccache}
    export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
    export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
    PLAIDML_CMAKE_ARGS+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
}
