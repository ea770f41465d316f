//go:build !purego

package keccakx8

import (
	"encoding/binary"

	"golang.org/x/sys/cpu"
)

// Available reports whether Permute can run here: AVX-512F.
var Available = cpu.X86.HasAVX512F

// State is eight Keccak-f[1600] states, lane by lane: s[i][l] is lane i
// (x + 5y in FIPS 202's coordinates) of state l, so that lane i of all
// eight is one vector register. Byte j of state l's 200 is byte j%8 of
// lane j/8, little-endian (FIPS 202 §3.1.2 with the bits of a lane in
// little-endian order, as every SHA-3 implementation stores them).
type State [25][8]uint64

// Permute applies Keccak-f[1600] to each of the eight states. It panics
// if Available is false.
func (s *State) Permute() {
	if !Available {
		panic("keccakx8: AVX-512F is not available")
	}
	permute(s)
}

//go:noescape
func permute(s *State)

// XOR adds b into state l's bytes from byte at on: the absorbing half of a
// sponge. at+len(b) must be at most 200.
func (s *State) XOR(l, at int, b []byte) {
	for at%8 != 0 && len(b) > 0 {
		s[at/8][l] ^= uint64(b[0]) << (8 * (at % 8))
		at, b = at+1, b[1:]
	}
	for len(b) >= 8 {
		s[at/8][l] ^= binary.LittleEndian.Uint64(b)
		at, b = at+8, b[8:]
	}
	for i, c := range b {
		s[(at+i)/8][l] ^= uint64(c) << (8 * ((at + i) % 8))
	}
}

// Read copies state l's bytes from byte at on into out: the squeezing
// half of a sponge. at+len(out) must be at most 200.
func (s *State) Read(l, at int, out []byte) {
	for at%8 != 0 && len(out) > 0 {
		out[0] = byte(s[at/8][l] >> (8 * (at % 8)))
		at, out = at+1, out[1:]
	}
	for len(out) >= 8 {
		binary.LittleEndian.PutUint64(out, s[at/8][l])
		at, out = at+8, out[8:]
	}
	for i := range out {
		out[i] = byte(s[(at+i)/8][l] >> (8 * ((at + i) % 8)))
	}
}
