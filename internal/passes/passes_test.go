package passes

import "testing"

// TestSize: for every width of the engines (1, 4, 8) and more, and every
// n up to 100, the fewest passes of lanes, none over it, and the smallest
// size that gives them; 0 for n ≤ 0.
func TestSize(t *testing.T) {
	for _, lanes := range []int{1, 2, 3, 4, 8, 16} {
		if Size(0, lanes) != 0 || Size(-1, lanes) != 0 {
			t.Errorf("lanes %d: Size(0) = %d, Size(-1) = %d, want 0", lanes, Size(0, lanes), Size(-1, lanes))
		}
		for n := 1; n <= 100; n++ {
			size := Size(n, lanes)
			passes := (n + lanes - 1) / lanes
			if size < 1 || size > lanes || (n+size-1)/size != passes || (size > 1 && (n+size-2)/(size-1) == passes) {
				t.Errorf("lanes %d: Size(%d) = %d, want the smallest size giving %d passes", lanes, n, size, passes)
			}
		}
	}
	if got := Size(20, 8); got != 7 {
		t.Errorf("Size(20, 8) = %d, want 7 (passes of 7, 7 and 6)", got)
	}
}
