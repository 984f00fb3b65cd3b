#!/usr/bin/env bash
# libplaidml.so exports plaidml_* functions only (never LLVM, spdlog, fmt or libstdc++ symbols,
# objects included) and has SONAME libplaidml.so.0. Every defined entry of the dynamic symbol
# table counts, whatever its type or binding: GNU-unique objects (typeinfo, inline functions'
# statics) that a version script turns LOCAL stay in .dynsym, so they are checked too.
#   check_exports.sh LIB [PREFIX [SONAME [MIN_COUNT]]]
# (defaults plaidml_, libplaidml.so.0, 10; libplaidml_onnx.so: plaidml_onnx_ libplaidml_onnx.so.0 5)
set -euo pipefail
lib=$1
prefix=${2:-plaidml_}
want_soname=${3:-libplaidml.so.0}
min_count=${4:-10}
fail=0
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "$want_soname" ]; then
  echo "FAIL: SONAME is '$soname', expected $want_soname"; fail=1
fi
# Num: Value Size Type Bind Vis Ndx Name; skip the header, the null entry and undefined ones.
defined=$(readelf -W --dyn-syms "$lib" | awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $8 != "" {
  sub(/@.*/, "", $8); print $4, $5, $8 }')
count=$(echo "$defined" | grep -c "^FUNC GLOBAL $prefix" || true)
bad=$(echo "$defined" | grep -v "^FUNC GLOBAL $prefix" | grep -v '^$' || true)
if [ -n "$bad" ]; then
  echo "FAIL: the dynamic symbol table has entries besides $prefix* functions (type bind name):"
  echo "$bad" | head -20; fail=1
fi
if [ "$count" -lt "$min_count" ]; then
  echo "FAIL: only $count $prefix* functions exported"; fail=1
fi
[ $fail = 0 ] && echo "ok: $count $prefix* functions exported, nothing else; SONAME $soname"
exit $fail
