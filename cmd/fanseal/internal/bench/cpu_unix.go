//go:build unix

package bench

import "syscall"

// processCPU returns the CPU time the process has used so far, user and
// system, of every thread, in nanoseconds, and whether the system says.
func processCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano() + ru.Stime.Nano()), true
}
