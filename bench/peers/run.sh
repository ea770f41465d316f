#!/usr/bin/env bash
# Benchmarks fanseal beside age, crypto/hpke, circl and Tink in one run and
# renders docs/PERFORMANCE.md. COUNT and BENCHTIME tune the run.
set -euo pipefail
cd "$(dirname "$0")"
count=${COUNT:-6}
benchtime=${BENCHTIME:-300ms}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cmd="go test -run '^\$' -bench . -benchmem -count $count -benchtime $benchtime"
eval "$cmd" | tee "$out"
go run ./render -in "$out" -cmd "cd bench/peers && $cmd" -out ../../docs/PERFORMANCE.md
echo "wrote docs/PERFORMANCE.md"
