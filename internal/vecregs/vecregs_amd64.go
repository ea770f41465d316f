//go:build !purego

package vecregs

import "golang.org/x/sys/cpu"

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

// NonZero names the registers in r that are not zero.
func (r *Regs) NonZero() (nonzero []string) {
	for i, z := range r.Z {
		for _, b := range z {
			if b != 0 {
				nonzero = append(nonzero, "Z"+itoa(i))
				break
			}
		}
	}
	for i, k := range r.K {
		if k != 0 {
			nonzero = append(nonzero, "K"+itoa(i+1))
		}
	}
	return nonzero
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}
