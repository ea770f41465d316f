// Package race reports whether the race detector is built in. Tests that
// count allocations skip under it: it instruments memory accesses and makes
// sync.Pool drop a random share of what is put back, so allocation counts
// there say nothing about the real build.
package race
