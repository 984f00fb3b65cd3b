#!/usr/bin/env bash
# libplaidml.so exports plaidml_* only (never LLVM, spdlog or fmt symbols) and has SONAME
# libplaidml.so.0.
set -euo pipefail
lib=$1
fail=0
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libplaidml.so.0" ]; then
  echo "FAIL: SONAME is '$soname', expected libplaidml.so.0"; fail=1
fi
exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}')
count=$(echo "$exports" | grep -c '^plaidml_' || true)
bad=$(echo "$exports" | grep -v '^plaidml_' | grep -v '^$' || true)
if [ -n "$bad" ]; then
  echo "FAIL: symbols exported besides plaidml_*:"; echo "$bad" | head -20; fail=1
fi
if [ "$count" -lt 10 ]; then
  echo "FAIL: only $count plaidml_* symbols exported"; fail=1
fi
[ $fail = 0 ] && echo "ok: $count plaidml_* symbols exported, nothing else; SONAME $soname"
exit $fail
