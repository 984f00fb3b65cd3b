#!/usr/bin/env bash
# README.md's Python quick start runs with the built library and prints a softmax: rows of
# probabilities that sum to 1 (checked here), so the first Python a new user copies works.
set -euo pipefail
readme=$1 python=$2
script=$(awk "/^python3 - <<'EOF'\$/ { inside = 1; next } inside && /^EOF\$/ { exit } inside" "$readme")
[ -n "$script" ] || { echo "FAIL: no Python quick start in $readme"; exit 1; }
out=$(printf '%s\n' "$script" | "$python" -)
echo "$out"
printf '%s\n' "$out" | "$python" -c '
import re, sys
rows = re.findall(r"\[([^\[\]]+)\]", sys.stdin.read())
probs = [[float(v) for v in r.split()] for r in rows if re.fullmatch(r"[\s0-9.e+-]+", r)]
assert len(probs) == 2 and all(len(p) == 4 for p in probs), probs
assert all(abs(sum(p) - 1) < 1e-5 for p in probs), probs
print("ok: README Python quick start prints a softmax of shape (2, 4)")
'
