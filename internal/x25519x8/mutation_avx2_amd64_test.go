//go:build !purego

package x25519x8

import (
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// mutationsAVX2 are errors in gen_avx2.go that the tests must catch: each
// changes the assembly it writes (avx2_amd64.s, both engines). A run
// (X25519X8_MUTATIONS=1, about two minutes) logs which tests caught each;
// the last one gave:
//
//	carry dropped, fold constant 19, limb 9 width, bias:
//	                  TestIntervals and the field, ladder and comb tests
//	                  (FieldOpsVec, InvertVec, Wycheproof, RFC7748*,
//	                  Differential*, Comb*, EdgeCases, ..., both Fuzz seeds;
//	                  bias: not the field tests, which do not subtract)
//	multiples by 19, odd limbs not doubled, square not doubled:
//	                  the field, ladder and comb tests (the bounds shrink:
//	                  not TestIntervals)
//	a24 constant, swap mask, ladder x1, scalar word:
//	                  the ladder tests (Wycheproof, RFC7748*, Differential*,
//	                  EdgeCases, MixedLowOrder, EveryLane, Aliasing,
//	                  FuzzScalarMult)
//	table row step, table entry index, digit step, entry conversion,
//	three doublings, negation dropped, sign swap halved, madd coordinate,
//	dbl square:       the comb tests (CombEdges, CombRandom, ScalarBaseMult,
//	                  RFC7748DiffieHellman, Differential* through checkBatch,
//	                  FuzzScalarBaseMult)
//	registers not wiped: TestRegistersWipedVec, TestIntervals
//	limb widths, inversion chain: refused by gen_avx2.go (its column bound
//	                  and addition-chain checks)
var mutationsAVX2 = []codegen.Mutation{
	{Name: "carry dropped",
		Old: "for _, pr := range [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 8}} {\n\t\tstep(pr[0], pr[1])",
		New: "for _, pr := range [][2]int{{0, 4}, {1, 5}, {3, 7}, {4, 8}} {\n\t\tstep(pr[0], pr[1])"},
	{Name: "fold constant 19",
		Old: `ins("VPSLLQ $3, %s, %s", r(tmpA), r(tmpA))`,
		New: `ins("VPSLLQ $2, %s, %s", r(tmpA), r(tmpA))`},
	{Name: "multiples by 19",
		Old: `c19      = constVec("19", 19)`,
		New: `c19      = constVec("19", 18)`},
	{Name: "a24 constant",
		Old: `cA24     = constVec("121665", 121665)`,
		New: `cA24     = constVec("121665", 121666)`},
	{Name: "swap mask",
		Old: `ins("VPSUBQ %s, %s, %s", r(1), r(15), r(15))`,
		New: `ins("VPSUBQ %s, %s, %s", r(0), r(15), r(15))`},
	{Name: "table row step",
		Old: `ins("ADDQ $%d, R9", rowBytes)`,
		New: `ins("ADDQ $%d, R9", rowBytes-entryBytes)`},
	{Name: "table entry index",
		Old: `(m-1)*entryBytes+coord*40+8*l`,
		New: `(m%8)*entryBytes+coord*40+8*l`},
	{Name: "digit step",
		Old: `ins("ADDQ $256, R8")`,
		New: `ins("ADDQ $128, R8")`},
	{Name: "limb 9 width",
		Old: `ins("VPSRLQ $25, %s, %s", r(9), r(tmpA))`,
		New: `ins("VPSRLQ $26, %s, %s", r(9), r(tmpA))`},
	{Name: "limb widths",
		Old: `w[j] = 26 - uint(j%2)`,
		New: `w[j] = 25 + uint(j%2)`},
	{Name: "entry conversion",
		Old: `ins("VPSLLQ $%d, %s, %s", 52-sh, r(i+1), r(15))`,
		New: `ins("VPSLLQ $%d, %s, %s", 51-sh, r(i+1), r(15))`},
	{Name: "three doublings",
		Old: `ins("MOVQ $4, CX")`,
		New: `ins("MOVQ $3, CX")`},
	{Name: "ladder x1",
		Old: `mulTo(z3, tt, x1)`,
		New: `mulTo(z3, tt, bb)`},
	{Name: "scalar word",
		Old: `ins("SHRQ $6, AX")`,
		New: `ins("SHRQ $5, AX")`},
	{Name: "odd limbs not doubled",
		Old: `			src = r(rowF2)`,
		New: `			src = r(rowF)`},
	{Name: "square not doubled",
		Old: `c *= 2`,
		New: `c *= 1`},
	{Name: "registers not wiped",
		Old: `ins("VZEROALL")`,
		New: `ins("VZEROUPPER")`},
	{Name: "bias",
		Old: `constVec("2p odd limbs", 2*pLimb(1))`,
		New: `constVec("2p odd limbs", 2*pLimb(1)+2)`},
	{Name: "negation dropped",
		Old: `ins("%s %s, %s, %s", cur.xor, r(4), r(2), r(2))`,
		New: ``},
	{Name: "sign swap halved",
		Old: `ins("%s %s, %s, %s", cur.xor, r(3), r(1), r(1))`,
		New: ``},
	{Name: "madd coordinate",
		Old: `mulTo(c.tc, c.qt, c.pt)`,
		New: `mulTo(c.tc, c.qm, c.pt)`},
	{Name: "dbl square",
		Old: `sqTo(c.tf, c.ypx) // (X+Y)^2`,
		New: `sqTo(c.tf, c.ymx) // (X+Y)^2`},
	{Name: "inversion chain",
		Old: `sqn(t[1], t[1], 5)    // z^(2^255-2^5)`,
		New: `sqn(t[1], t[1], 4)    // z^(2^255-2^5)`},
}

// TestMutationsAVX2 checks that the tests catch each mutation of
// gen_avx2.go (codegen.MutateGenerator: the mutated generator's assembly
// replaces avx2_amd64.s through the go command's -overlay flag, which the
// tests that read the file see too, as they embed it). It takes several
// minutes: set X25519X8_MUTATIONS=1.
func TestMutationsAVX2(t *testing.T) {
	if os.Getenv("X25519X8_MUTATIONS") == "" {
		t.Skip("set X25519X8_MUTATIONS=1 to run the mutation test of gen_avx2.go")
	}
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	codegen.MutateGenerator(t, "gen_avx2.go", "avx2_amd64.s", "X25519X8_", mutationsAVX2)
}
