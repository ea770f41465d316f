//go:build unix

package verify

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time this process has used, all threads together.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU time per operation since start, a figure that
// other processes on a shared machine disturb much less than the wall
// time: with -cpu 1 it is the single-core cost.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
