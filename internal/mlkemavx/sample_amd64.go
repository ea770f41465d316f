//go:build !purego

package mlkemavx

import (
	"crypto/sha3"

	"github.com/fanseal/fanseal/internal/keccakx8"
)

// The sponges of ML-KEM-768 (FIPS 203 §4.1): XOF = SHAKE128 (rate 168),
// PRF = SHAKE256 (rate 136), both with FIPS 202's SHAKE padding.
const (
	xofRate = 168
	prfRate = 136
	prfLen  = 64 * 2 // PRF_η with η1 = η2 = 2
)

// The domain bits of FIPS 202, with the first bit of pad10*1: SHAKE's
// 1111 and SHA-3's 01.
const (
	shakeDomain = 0x1f
	sha3Domain  = 0x06
)

// pad starts a one-block SHAKE sponge in state l of s (zero in that
// state): the message m, then padding.
func pad(s *keccakx8.State, l int, m []byte, rate int) {
	s.XOR(l, 0, m)
	padAt(s, l, len(m), rate, shakeDomain)
}

// padAt ends the last block of state l's message, at byte at of the
// block: the domain bits, and the final bit of pad10*1 at the block's end.
func padAt(s *keccakx8.State, l, at, rate int, domain byte) {
	s.XOR(l, at, []byte{domain})
	s.XOR(l, rate-1, []byte{0x80})
}

// sampleNTT runs FIPS 203 Algorithm 7 on the XOF stream of each of up to
// eight seeds ρ || j || i at once (seeds[l] into a[l]): every permutation
// squeezes a block for all eight, and each state is read until its
// polynomial has 256 coefficients. The matrix is public, and so is the
// number of blocks each needs.
func sampleNTT(a []*poly, seeds [][34]byte) {
	var s keccakx8.State
	for l := range seeds {
		pad(&s, l, seeds[l][:], xofRate)
	}
	var n [8]int
	for {
		s.Permute()
		done := true
		var block [xofRate]byte
		for l := range seeds {
			if n[l] == 256 {
				continue
			}
			s.Read(l, 0, block[:])
			n[l] = rejection(a[l], n[l], block[:])
			done = done && n[l] == 256
		}
		if done {
			return
		}
	}
}

// sampleNTT1 is Algorithm 7 for one seed, with crypto/sha3's SHAKE128.
func sampleNTT1(a *poly, seed *[34]byte) {
	h := sha3.NewSHAKE128()
	h.Write(seed[:])
	var block [xofRate]byte
	for n := 0; n < 256; {
		h.Read(block[:])
		n = rejection(a, n, block[:])
	}
}

// rejection takes the 12-bit candidates of block below q into a from
// coefficient n on, stopping at 256, and returns the new count.
func rejection(a *poly, n int, block []byte) int {
	for i := 0; i+3 <= len(block) && n < 256; i += 3 {
		d1 := uint16(block[i]) | uint16(block[i+1]&0x0f)<<8
		d2 := uint16(block[i+1]>>4) | uint16(block[i+2])<<4
		if d1 < q {
			a[n] = int16(d1)
			n++
		}
		if d2 < q && n < 256 {
			a[n] = int16(d2)
			n++
		}
	}
	return n
}

// prf derives len(out) noise polynomials (at most eight), out[i] from
// PRF_2(seed, first+i) (SHAKE256 of seed || N, 128 bytes: one block), all
// in one eight-way permutation of s (zero on entry, and again on return),
// and samples them with SamplePolyCBD_2.
func prf(out []*poly, seed *[32]byte, first byte, s *keccakx8.State) {
	var in [33]byte
	copy(in[:], seed[:])
	for l := range out {
		in[32] = first + byte(l)
		pad(s, l, in[:], prfRate)
	}
	s.Permute()
	var buf [prfLen]byte
	for l, p := range out {
		s.Read(l, 0, buf[:])
		cbd2(p, &buf)
	}
	clear(in[:])
	clear(buf[:])
	clear(s[:]) // the permuted states invert to the seed
}

// gRate is SHA3-512's rate; jBlocks is the number of SHAKE256 blocks of
// z || c (32 + 1088 bytes, the last one partial).
const (
	gRate   = 72
	jBlocks = (32 + CiphertextSize + prfRate) / prfRate
)

// hashG sets (kk[l], r[l]) = G(m[l] || h) = SHA3-512(m[l] || h) (FIPS 203
// §4.1) for up to eight l in one eight-way permutation: 64 bytes, one
// block with SHA-3's padding. One alone goes to crypto/sha3,
// which takes less time than a pass for one lane.
func hashG(kk [][SharedKeySize]byte, r, m [][32]byte, h *[32]byte) {
	if len(m) == 1 {
		var g [64]byte
		copy(g[:32], m[0][:])
		copy(g[32:], h[:])
		out := sha3.Sum512(g[:])
		copy(kk[0][:], out[:32])
		copy(r[0][:], out[32:])
		clear(g[:32])
		clear(out[:])
		return
	}
	var s keccakx8.State
	for l := range m {
		s.XOR(l, 0, m[l][:])
		s.XOR(l, 32, h[:])
		padAt(&s, l, 64, gRate, sha3Domain)
	}
	s.Permute()
	for l := range m {
		s.Read(l, 0, kk[l][:])
		s.Read(l, 32, r[l][:])
	}
	clear(s[:]) // the permuted states invert to m
}

// hashJ sets reject[l] = J(z || cts[l]) = SHAKE256(z || c, 32 bytes) for
// up to eight ciphertexts in jBlocks eight-way permutations: block 0
// holds z and the first 104 bytes of c, the last one c's last 32 bytes
// and SHAKE's padding. One alone goes to crypto/sha3.
func hashJ(reject [][SharedKeySize]byte, z *[32]byte, cts []*[CiphertextSize]byte) {
	if len(cts) == 1 {
		j := sha3.NewSHAKE256()
		j.Write(z[:])
		j.Write(cts[0][:])
		j.Read(reject[0][:])
		j.Reset() // its state inverts to z
		return
	}
	var s keccakx8.State
	for l := range cts {
		s.XOR(l, 0, z[:])
	}
	for b := range jBlocks {
		// Bytes [136b, 136b+136) of z || c are c[136b-32 ...].
		from, to := max(prfRate*b-32, 0), min(prfRate*(b+1)-32, CiphertextSize)
		at := 0
		if b == 0 {
			at = 32
		}
		for l, ct := range cts {
			s.XOR(l, at, ct[from:to])
			if b == jBlocks-1 {
				padAt(&s, l, at+to-from, prfRate, shakeDomain)
			}
		}
		s.Permute()
	}
	for l := range cts {
		s.Read(l, 0, reject[l][:])
	}
	clear(s[:]) // the states invert to z
}
