#!/usr/bin/env bash
# The first C example in README.md (the complete program; later blocks are fragments) compiles as C99 with -Werror against the built library and prints
# the right product, so the first code a new user copies always works.
set -euo pipefail
readme=$1 include=$2 libdir=$3 work=$4
mkdir -p "$work"
awk '/^```c$/ { inside = 1; next } inside && /^```$/ { exit } inside' "$readme" \
  >"$work/readme_example.c"
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$include" "$work/readme_example.c" \
  -L"$libdir" -lplaidml -Wl,-rpath,"$libdir" -o "$work/readme_example"
out=$("$work/readme_example")
echo "$out"
[ "$out" = "$(printf '58 64\n139 154')" ] || { echo "FAIL: unexpected output"; exit 1; }
echo "ok: README's C example builds and prints the right product"
