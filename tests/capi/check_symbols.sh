#!/usr/bin/env bash
# Every function plaidml.h declares is exported by libplaidml.so, and nothing else is exported
# as a function: the header and the library's ABI are the same list.
# Usage: check_symbols.sh <libplaidml.so> <plaidml.h>
set -euo pipefail
lib=$1
header=$2
declared=$(grep -oE '^PLAIDML_API [^(]*\bplaidml_[a-z0-9_]+\(' "$header" |
           grep -oE 'plaidml_[a-z0-9_]+\($' | tr -d '(' | sort)
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort)
if ! diff <(echo "$declared") <(echo "$exported"); then
  echo "0 passed, 1 failed (< declared only, > exported only)"
  exit 1
fi
echo "declared and exported: $(echo "$declared" | wc -l) functions"
echo "1 passed, 0 failed"
