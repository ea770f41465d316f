#!/usr/bin/env bash
# Benchmarks fanseal beside age, crypto/hpke, circl and Tink in one run and
# renders docs/PERFORMANCE.md: every benchmark on this CPU as it is, then
# the 20-recipient seals and the opens of fanseal's default envelope and
# its peers as a CPU without AVX-512 IFMA (GODEBUG=cpu.avx512ifma=off)
# and as one with AVX2 alone (GODEBUG=cpu.avx512f=off) would run them.
# COUNT and BENCHTIME tune the run.
set -euo pipefail
cd "$(dirname "$0")"
count=${COUNT:-6}
benchtime=${BENCHTIME:-300ms}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
flags="-run '^\$' -benchmem -count $count -benchtime $benchtime"
eval "go test $flags -bench ." | tee "$dir/ifma.txt"
for kind in ifmaoff:cpu.avx512ifma=off avx2:cpu.avx512f=off; do
	export GODEBUG=${kind#*:}
	{
		eval "go test $flags -bench 'Seal/peer=(hpke|hpke-errgroup|age|fanseal-private)\$/./n=20\$'"
		eval "go test $flags -bench 'Open/peer=(hpke|fanseal-private)\$'"
	} | tee "$dir/${kind%%:*}.txt"
done
unset GODEBUG
go run ./render -in ifma="$dir/ifma.txt" -in ifmaoff="$dir/ifmaoff.txt" -in avx2="$dir/avx2.txt" \
	-cmd "cd bench/peers && go test $flags -bench ." -out ../../docs/PERFORMANCE.md
echo "wrote docs/PERFORMANCE.md"
