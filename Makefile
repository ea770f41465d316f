# Benchmarks of every hot path, ten runs each, for benchstat.
# Compare two runs with: go tool benchstat old.txt new.txt
BENCH_OUT ?= bench.txt

.PHONY: bench test
bench:
	go test -run '^$$' -bench . -benchmem -count 10 github.com/fanseal/fanseal/... | tee $(BENCH_OUT)

test:
	bash .ci/run
