// Package passes cuts a run of n like operations into passes of a vector
// engine that computes up to a fixed number of lanes at a time: the rule
// that internal/x25519x8 and internal/ecdhx8 share for their BatchSize.
package passes

// Size returns how many lanes to fill per pass when n operations are cut
// into consecutive passes of at most lanes each: as few passes as
// possible (n/lanes rounded up) with as few lanes each as that allows,
// the last pass taking the rest. Fewer lanes do not make a pass cheaper,
// but they spread the work around the passes evenly (20 on eight lanes:
// 7, 7 and 6, not 8, 8 and 4). Size is 0 for n ≤ 0; lanes must be at
// least 1.
func Size(n, lanes int) int {
	if n <= 0 {
		return 0
	}
	passes := (n + lanes - 1) / lanes
	return (n + passes - 1) / passes
}
