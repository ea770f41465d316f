//go:build !purego

package ecdhx8

import "golang.org/x/sys/cpu"

// hasAVX2: the AVX2 engine of avx2_amd64.s (x/sys/cpu also checks that the
// operating system saves the registers' state).
var hasAVX2 = cpu.X86.HasAVX2

// availableEngines lists the engines this CPU runs, best first; generic
// is always last.
func availableEngines() []engineID {
	var es []engineID
	if hasIFMA {
		es = append(es, engineIFMA)
	}
	if hasAVX2 {
		es = append(es, engineAVX2)
	}
	return append(es, engineGeneric)
}

// scratchWordsAVX2 is the scratch of the functions of avx2_amd64.s: the
// bytes its end reports, plus 32 to align them.
const scratchWordsAVX2 = (23616 + 32) / 8

// The AVX2 engine (avx2_amd64.s): four lanes a pass, each function given
// pointers to lane 0 or lane 4 of the eight-lane arrays of ifma_amd64.go
// (aff8, sdigits, digits: limb j, or window w, 64 bytes apart), in the
// IFMA engine's representation (radix 2^52; P-256 in its Montgomery
// form), which it converts to its own (radix 2^29) as it reads and back
// as it writes.

// ecdhP256AVX2 sets out (an aff8 from lane l) to the affine k*P of the
// four lanes from l: in is P (the IFMA engine's representation, below
// 2^257: what checkP256AVX2 or im.g give), d the signed digits of k
// (setSignedDigits); normalized and below 2p, (0, 0) for the identity.
//
//go:noescape
func ecdhP256AVX2(out, d, in *uint64, scratch *[scratchWordsAVX2]uint64)

// pubP256AVX2 sets out to the affine k*G of the four lanes from l: d the
// comb's digits of k (setDigits), table the IFMA engine's comb.
//
//go:noescape
func pubP256AVX2(out, d *uint64, table *baseTable, scratch *[scratchWordsAVX2]uint64)

// checkP256AVX2 is checkP256 on four lanes: in the canonical coordinates;
// out the point in the IFMA engine's representation, res[0] zero mod p
// exactly where the point is on the curve.
//
//go:noescape
func checkP256AVX2(out, res, in *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func ecdhK256AVX2(out, d, in *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func pubK256AVX2(out, d *uint64, table *baseTable, scratch *[scratchWordsAVX2]uint64)

// checkK256AVX2 is checkK256 on four lanes.
//
//go:noescape
func checkK256AVX2(out, res, in *uint64, scratch *[scratchWordsAVX2]uint64)

// fe9 is eight field elements in radix 2^29, limb-major (the tests' view of
// the AVX2 engine's field); point9 eight projective points.
type (
	fe9    [9][Lanes]uint64
	point9 [3]fe9
)

// Single operations of the AVX2 engine, for the tests, on four lanes of
// fe9 or point9 from the lane pointer (see avx2_amd64.s for the forms).
//
//go:noescape
func feMulP256AVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func feSquareP256AVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func feSubP256AVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func feCarryP256AVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func pointAddP256AVX2(out, p, q *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func pointDblP256AVX2(out, p, q *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func feMulK256AVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func feSquareK256AVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func feSubK256AVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func feCarryK256AVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func pointAddK256AVX2(out, p, q *uint64, scratch *[scratchWordsAVX2]uint64)

//go:noescape
func pointDblK256AVX2(out, p, q *uint64, scratch *[scratchWordsAVX2]uint64)
