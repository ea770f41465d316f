//go:build !purego

package mlkemavx

import "golang.org/x/sys/cpu"

// available reports whether this CPU runs the engine: AVX-512F and BW
// (the arithmetic) and the eight-way Keccak.
var available = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
