//go:build !purego

package vecregs

import (
	"slices"
	"testing"
)

// TestRead checks that Read writes every register's slot: X15 is zero in
// Go code (the ABI's zero register), so its slot, filled beforehand, must
// come back zero.
func TestRead(t *testing.T) {
	if !Available {
		t.Skip("no AVX-512BW")
	}
	var r Regs
	for i := range r.Z {
		for j := range r.Z[i] {
			r.Z[i][j] = 0xff
		}
	}
	Read(&r)
	for j, b := range r.Z[15][:16] {
		if b != 0 {
			t.Fatalf("X15 byte %d = %#x: Read did not write it", j, b)
		}
	}
}

// TestNonZero checks the names NonZero gives, and that it looks only at
// the mask registers it is asked about.
func TestNonZero(t *testing.T) {
	var r Regs
	if nz := r.NonZero(1, 2, 3, 4, 5, 6, 7); len(nz) != 0 {
		t.Fatalf("zero registers: %v", nz)
	}
	r.Z[3][63] = 1
	r.Z[27][0] = 1
	r.K[1] = 1 // K2
	if got, want := r.NonZero(), []string{"Z3", "Z27"}; !slices.Equal(got, want) {
		t.Errorf("NonZero() = %v, want %v", got, want)
	}
	if got, want := r.NonZero(1, 2), []string{"Z3", "Z27", "K2"}; !slices.Equal(got, want) {
		t.Errorf("NonZero(1, 2) = %v, want %v", got, want)
	}
}
