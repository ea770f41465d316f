//go:build !unix

package bench

// processCPU reports that this system's process CPU time is not measured.
func processCPU() (float64, bool) { return 0, false }
