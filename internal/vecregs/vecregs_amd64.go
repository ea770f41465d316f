//go:build !purego

package vecregs

import (
	"strconv"

	"golang.org/x/sys/cpu"
)

// Available reports whether Read runs here: AVX-512F and AVX-512BW.
var Available = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

// Regs is a copy of the 32 ZMM registers and the mask registers K1..K7.
type Regs struct {
	Z [32][64]byte
	K [7]uint64
}

// Read copies the vector and mask registers into r, as the function that
// ran just before left them; the caller must call it with nothing between
// (any Go code may use the vector registers). It needs Available.
//
//go:noescape
func Read(r *Regs)

// NonZero names the vector registers in r that are not zero, and those of
// the mask registers masks (numbers 1 to 7) that are not. The Go runtime
// itself uses mask registers (the garbage collector's AVX-512 scanning),
// so a test checks only those its function writes.
func (r *Regs) NonZero(masks ...int) (nonzero []string) {
	for i, z := range r.Z {
		for _, b := range z {
			if b != 0 {
				nonzero = append(nonzero, "Z"+strconv.Itoa(i))
				break
			}
		}
	}
	for _, k := range masks {
		if r.K[k-1] != 0 {
			nonzero = append(nonzero, "K"+strconv.Itoa(k))
		}
	}
	return nonzero
}
