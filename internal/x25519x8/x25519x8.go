// Package x25519x8 computes up to eight X25519 functions (RFC 7748) in one
// call, on the best of four engines this CPU has (Engine names it):
//
//   - "avx512ifma": with AVX-512 IFMA, one Montgomery ladder whose eight
//     64-bit vector lanes each carry an independent scalar and point in
//     radix 2^52 (and, for public keys, ScalarBaseMult, one fixed-base comb
//     on edwards25519 over a table of multiples of the base point, about
//     twice as fast): one pass for any count;
//   - "avx512f": without IFMA but with AVX-512F, the same ladder and comb
//     in radix 2^25.5 on VPMULUDQ, eight lanes of 512-bit registers a pass
//     (a call of up to four lanes takes the AVX2 pass);
//   - "avx2": the same code on four lanes of 256-bit AVX2 registers, one
//     pass for up to four lanes and two for more;
//   - "generic": elsewhere, and under the purego build tag, crypto/ecdh one
//     lane at a time.
//
// With internal/ecdhx8 and internal/k256 it is one of the places in
// fanseal where field arithmetic is fanseal's own. The vector code is
// generated: by gen.go into ifma_amd64.s and by gen_avx2.go into
// avx2_amd64.s, whose headers hold the limb bounds argument and the
// constant-time argument; the tests compare every result of every engine
// with crypto/ecdh, golang.org/x/crypto/curve25519, circl's x25519, RFC
// 7748's and Wycheproof's vectors and every field operation with
// math/big, interpret
// avx2_amd64.s with limb bounds (TestIntervals), a timing test
// (X25519X8_TIMING=1, run by CI) applies Welch's t-test to every engine's
// passes, and a mutation test (X25519X8_MUTATIONS=1) checks that the tests
// catch deliberate errors in both generators.
//
// The functions compute X25519 exactly as RFC 7748 defines it, including
// the all-zero output for low-order points: rejecting that output, as
// RFC 7748 section 6.1 and RFC 9180 require, is the caller's job.
package x25519x8

import (
	"crypto/ecdh"
	"crypto/subtle"
	"fmt"

	"github.com/fanseal/fanseal/internal/passes"
)

//go:generate go run gen.go
//go:generate go run gen_avx2.go

// Lanes is the most X25519 functions one call computes: one pass of the
// IFMA and AVX-512F engines, two of the AVX2 engine.
const Lanes = 8

// Accelerated reports whether ScalarMult and ScalarBaseMult run on vector
// code (IFMA, AVX-512F or AVX2; see Engine). When false, they call
// crypto/ecdh once per lane, and a caller gains nothing from batching.
// A pass pays from more lanes on some engines than on others: a one-lane
// ScalarMult call costs about as much as 1 crypto/ecdh function on the
// IFMA engine and 1.65 on the AVX2 and AVX-512F engines (AMD Zen 5), so
// that there, one agreement alone is cheaper through crypto/ecdh, and two
// or more are cheaper in one call; a one-lane ScalarBaseMult call costs
// about 0.55 crypto/ecdh public keys on those, 0.37 on IFMA.
func Accelerated() bool { return engine != engineGeneric }

// Engine names the engine ScalarMult and ScalarBaseMult run on here:
// "avx512ifma", "avx512f", "avx2" or "generic" (see the package comment).
func Engine() string { return engine.String() }

// An engineID is one of the engines.
type engineID uint8

const (
	engineGeneric engineID = iota
	engineAVX2
	engineAVX512F
	engineIFMA
)

func (e engineID) String() string {
	return [...]string{"generic", "avx2", "avx512f", "avx512ifma"}[e]
}

// engine is the engine the exported functions use: the first of IFMA,
// AVX-512F and AVX2 that the CPU has (availableEngines), else generic.
var engine = availableEngines()[0]

// basepoint is the u-coordinate 9 of the Curve25519 base point.
var basepoint = [32]byte{9}

// ScalarMult sets dst[i] = X25519(scalars[i], points[i]) for i < n: the
// scalars are clamped, the top bit of each point is ignored and
// non-canonical points are reduced, as RFC 7748 section 5 says. The result
// of a low-order point is all zeros; the caller must check for it. Lanes n
// and above of dst are left alone. n must be in [0, Lanes]; dst may alias
// scalars or points.
//
// Every lane of a pass costs the same, whatever n is. On the IFMA engine a
// call is one pass of eight lanes: one lane costs about as much as eight.
// On the AVX2 engine a pass is four lanes, and a call's cost grows with
// ceil(n/4): n = 5 costs as much as n = 8, twice n = 4 less one
// inversion (the two passes share one). On the AVX-512F
// engine a call of up to four lanes is one AVX2 pass, and one of five to
// eight a pass of eight lanes, which costs about 1.2 AVX2 passes.
// On the generic engine the cost grows with n.
func ScalarMult(dst, scalars, points *[Lanes][32]byte, n int) {
	checkCount(n)
	scalarMult(engine, dst, scalars, points, n)
}

// scalarMult is ScalarMult on the engine e (which the tests choose).
func scalarMult(e engineID, dst, scalars, points *[Lanes][32]byte, n int) {
	switch e {
	case engineIFMA:
		scalarMultIFMA(dst, scalars, points, n)
	case engineAVX512F:
		scalarMultVec(opsWide(n), dst, scalars, points, n)
	case engineAVX2:
		scalarMultVec(&opsAVX2, dst, scalars, points, n)
	default:
		scalarMultGeneric(dst, scalars, points, n)
	}
}

// ScalarBaseMult sets dst[i] = X25519(scalars[i], 9) for i < n: the public
// keys of the private keys scalars[i]. n must be in [0, Lanes].
func ScalarBaseMult(dst, scalars *[Lanes][32]byte, n int) {
	checkCount(n)
	scalarBaseMult(engine, dst, scalars, n)
}

func scalarBaseMult(e engineID, dst, scalars *[Lanes][32]byte, n int) {
	switch e {
	case engineIFMA:
		scalarBaseMultIFMA(dst, scalars, n)
	case engineAVX512F:
		scalarBaseMultVec(opsWide(n), dst, scalars, n)
	case engineAVX2:
		scalarBaseMultVec(&opsAVX2, dst, scalars, n)
	default:
		scalarBaseMultGeneric(dst, scalars, n)
	}
}

// ScalarBaseMultAndMult sets pubs[i] = X25519(scalars[i], 9) and dst[i] =
// X25519(scalars[i], points[i]) for i < n, as ScalarBaseMult and
// ScalarMult do, for a little less than both: on the vector engines their
// two divisions share one inversion. Where dst[i] is all zeros (a low-order
// point), so is pubs[i]: the caller refuses that lane anyway. n must be
// in [0, Lanes]; pubs and dst must not alias each other, and may alias
// scalars or points.
func ScalarBaseMultAndMult(pubs, dst, scalars, points *[Lanes][32]byte, n int) {
	checkCount(n)
	if pubs == dst {
		panic("x25519x8: ScalarBaseMultAndMult with pubs and dst the same")
	}
	both(engine, pubs, dst, scalars, points, n)
}

func both(e engineID, pubs, dst, scalars, points *[Lanes][32]byte, n int) {
	switch e {
	case engineIFMA:
		bothIFMA(pubs, dst, scalars, points, n)
		return
	case engineAVX512F:
		bothVec(opsWide(n), pubs, dst, scalars, points, n)
		return
	case engineAVX2:
		bothVec(&opsAVX2, pubs, dst, scalars, points, n)
		return
	}
	s, p := *scalars, *points // pubs may alias either
	scalarBaseMultGeneric(pubs, &s, n)
	scalarMultGeneric(dst, &s, &p, n)
	// Zero the key where the agreement is zero, without a branch or a
	// comparison that stops early on the secret agreement.
	var zero [32]byte
	for i := range n {
		keep := byte(subtle.ConstantTimeCompare(dst[i][:], zero[:])) - 1 // 0 where zero
		for j := range pubs[i] {
			pubs[i][j] &= keep
		}
	}
	clear(s[:])
}

func checkCount(n int) {
	if n < 0 || n > Lanes {
		panic(fmt.Sprintf("x25519x8: %d lanes (allowed: 0 to %d)", n, Lanes))
	}
}

// scalarMultGeneric is the portable path: crypto/ecdh, one lane at a time.
// crypto/ecdh computes the public key in NewPrivateKey, so each lane costs
// two ladders here; callers check Accelerated and keep their own
// crypto/ecdh keys when batching does not pay.
func scalarMultGeneric(dst, scalars, points *[Lanes][32]byte, n int) {
	for i := range n {
		k, err := ecdh.X25519().NewPrivateKey(scalars[i][:])
		if err != nil {
			panic(err) // unreachable: every 32-byte string is an X25519 key
		}
		p, err := ecdh.X25519().NewPublicKey(points[i][:])
		if err != nil {
			panic(err) // unreachable: every 32-byte string is an X25519 point
		}
		s, err := k.ECDH(p)
		if err != nil {
			// crypto/ecdh refuses the all-zero output of a low-order
			// point, which is this package's result for it.
			s = make([]byte, 32)
		}
		dst[i] = [32]byte(s)
	}
}

func scalarBaseMultGeneric(dst, scalars *[Lanes][32]byte, n int) {
	for i := range n {
		k, err := ecdh.X25519().NewPrivateKey(scalars[i][:])
		if err != nil {
			panic(err) // unreachable: every 32-byte string is an X25519 key
		}
		dst[i] = [32]byte(k.PublicKey().Bytes())
	}
}

// PassLanes returns how many lanes one pass of the engine in use computes
// for the price of one: 8 on the IFMA and AVX-512F engines, 4 on the AVX2
// engine, and 1 on the generic engine, whose cost grows with every lane.
func PassLanes() int {
	switch engine {
	case engineIFMA, engineAVX512F:
		return Lanes
	case engineAVX2:
		return 4
	}
	return 1
}

// PassCost returns what one pass of PassLanes lanes costs on one core, in
// crypto/ecdh X25519 functions, as measured on AMD Zen 5 (BenchmarkScalarMult,
// engine=ecdh for the unit): 1 on the IFMA engine, 1.65 on the AVX2 engine
// and 2 on the AVX-512F engine (its pass of eight lanes; one of up to four
// is the AVX2 pass). The generic engine's pass is one crypto/ecdh function
// and one key: 2. A caller that could compute the multiplications one at a
// time instead weighs the two with it.
func PassCost() float64 {
	switch engine {
	case engineIFMA:
		return 1
	case engineAVX2:
		return 1.65
	}
	return 2
}

// BatchSize returns how many lanes to fill per call when n operations are
// cut into consecutive calls of one pass each (PassLanes lanes): as few
// passes as possible, spread evenly, as passes.Size says.
func BatchSize(n int) int { return passes.Size(n, PassLanes()) }
