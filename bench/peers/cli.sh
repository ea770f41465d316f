#!/usr/bin/env bash
# Compares the fanseal command with age v1.3.2 (the version cmd/fanseal's
# go.mod pins as a tool) in wall time: --version, and encrypting and
# decrypting 1 KiB to one X25519 recipient (a fanseal envelope, and the
# age file itself, by fanseal decrypt and by fanseal linked as age), a
# 50 MB age file, and 1 KiB sealed for 200 as the last of them. Runs
# alternate, A B then B A, so that the machine's load hits both; it prints
# each program's median and the median of the pairwise ratios (fanseal's
# time over age's, run i against run i). N (default 300) sets the runs per
# program, N50 (default 20) those of the 50 MB file.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${N:-300}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/fanseal" ./cmd/fanseal
(cd cmd/fanseal && go build -o "$dir/age" filippo.io/age/cmd/age && go build -o "$dir/age-keygen" filippo.io/age/cmd/age-keygen)
ls -l "$dir/fanseal" "$dir/age" | awk '{print $5, $NF}'
cd "$dir"
head -c 1024 /dev/urandom >msg
./fanseal keygen -o fs.key >/dev/null 2>&1
./age-keygen -o age.key 2>/dev/null
fspub=$(./fanseal keygen -y fs.key 2>/dev/null)
agepub=$(./age-keygen -y age.key)
./fanseal encrypt -r "$fspub" -o msg.fsl msg
./age -r "$agepub" -o msg.age msg

# ms runs its arguments once and prints the wall time in milliseconds;
# the outputs are removed after each run, untimed, so that every run
# writes a new file (REPLACE=1 keeps them: every run but the first then
# replaces its output).
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	[ -n "${REPLACE:-}" ] || rm -f o1 o2 d1 d2
	echo $(((t1 - t0) / 1000))
}
median() { sort -n | awk '{v[NR] = $1} END {printf "%.2f", v[int((NR + 1) / 2)] / 1000}'; }
pair() {
	local what=$1 a=$2 b=$3 runs=${4:-$n} i
	: >a.txt
	: >b.txt
	for ((i = 0; i < runs; i++)); do
		if ((i % 2 == 0)); then
			ms $a >>a.txt
			ms $b >>b.txt
		else
			ms $b >>b.txt
			ms $a >>a.txt
		fi
	done
	local ma mb
	ma=$(median <a.txt)
	mb=$(median <b.txt)
	ratio=$(paste a.txt b.txt | awk '{print $1 * 1000 / $2}' | median)
	echo "$what: fanseal $ma ms, age $mb ms, ratio $ratio (median of the pairwise ratios)"
}
pair "--version" "./fanseal --version" "./age --version"
pair "encrypt 1 KiB" "./fanseal encrypt -r $fspub -o o1 msg" "./age -r $agepub -o o2 msg"
pair "decrypt 1 KiB" "./fanseal decrypt -i fs.key -o d1 msg.fsl" "./age -d -i age.key -o d2 msg.age"
pair "decrypt 1 KiB, an age file" "./fanseal decrypt -i age.key -o d1 msg.age" "./age -d -i age.key -o d2 msg.age"
mkdir linked && ln -s ../fanseal linked/age
pair "age -d, fanseal linked as age" "./linked/age -d -i age.key -o d1 msg.age" "./age -d -i age.key -o d2 msg.age"
pair "encrypt 1 KiB to standard output (/dev/null)" "./fanseal encrypt -r $fspub msg" "./age -r $agepub msg"
head -c 50000000 /dev/urandom >big
./age -r "$agepub" -o big.age big
pair "decrypt a 50 MB age file" "./fanseal decrypt -i age.key -o d1 big.age" "./age -d -i age.key -o d2 big.age" "${N50:-20}"
rm -f big big.age

# 1 KiB for 200 X25519 recipients, decrypted as the last of them: fanseal's
# private envelope (the default: one key agreement) against age (a trial
# per stanza).
for i in $(seq 200); do
	./fanseal keygen -o "fs$i.key" >/dev/null 2>&1
	./fanseal keygen -y "fs$i.key" 2>/dev/null >>fs200.txt
	./age-keygen -o "age$i.key" 2>/dev/null
	./age-keygen -y "age$i.key" >>age200.txt
done
./fanseal encrypt -R fs200.txt -o msg200.fsl msg
./age -R age200.txt -o msg200.age msg
pair "decrypt 1 KiB of 200, as the last" "./fanseal decrypt -i fs200.key -o d1 msg200.fsl" "./age -d -i age200.key -o d2 msg200.age"
