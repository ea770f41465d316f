//go:build !purego

package ecdhx8

import (
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// mutations are errors the tests must catch. All but one change the code
// that gen.go writes without changing the bounds it tracks, so that its
// own checks pass and only the tests can notice; "chain exponent" is
// refused by gen.go's check of the addition chain. A run
// (ECDHX8_MUTATIONS=1) logs, for each, the tests that failed; the last
// one gave (every mutation is also caught by TestECDHRandom,
// TestECDHOneScalar, TestECDHEdgeCases, TestECDHInvalidPoints,
// TestEveryLane and TestRefScalarMult; the rest of each list):
//
//	carry dropped:       FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, Wycheproof*, fuzz seeds
//	fold constant:       FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, WycheproofSecp256k1
//	column off by one:   FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, Wycheproof*
//	Montgomery carry:    FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, WycheproofP256
//	fold shift:          FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, Wycheproof*
//	bias limb written:   FieldOps, PointFormulas, PublicKeys*, ParsePoints, Wycheproof*
//	table-scan bound:    PublicKeys, PublicKeysComb, Wycheproof*
//	mask skipped:        PublicKeys, PublicKeysComb, Wycheproof*, FuzzECDH seeds
//	sign mask address:   Wycheproof*, FuzzECDH seeds
//	window doublings:    Wycheproof*, FuzzECDH seeds
//	chain loop count:    Affine, PublicKeys*, ParsePoints, Wycheproof*
//	chain exponent:      gen.go ("inversion chain computes z^...")
//	b3 coefficient:      PointFormulas, PublicKeys, WycheproofSecp256k1
//	b coefficient:       FieldOps (mulSub), PointFormulas, PublicKeys, ParsePoints, WycheproofP256
//	swapped subtraction: PointFormulas, PublicKeys*, WycheproofP256
var mutations = []codegen.Mutation{
	{Name: "carry dropped",
		Old: `		codegen.Ins("VPADDQ %s, %s, %s", t0, v[j+1], v[j+1])
		l[j+1] = codegen.Add(l[j+1], codegen.Rsh(l[j], 52))`,
		New: `		if j != 2 {
			codegen.Ins("VPADDQ %s, %s, %s", t0, v[j+1], v[j+1])
		}
		l[j+1] = codegen.Add(l[j+1], codegen.Rsh(l[j], 52))`},
	{Name: "fold constant",
		Old: `	f.c260 = f.mod(codegen.Pow2(260))`,
		New: `	f.c260 = codegen.Add(f.mod(codegen.Pow2(260)), big.NewInt(16))`},
	{Name: "column off by one",
		Old: `}{{i + j, "VPMADD52LUQ", lo}, {i + j + 1, "VPMADD52HUQ", hi}} {`,
		New: `}{{i + j, "VPMADD52LUQ", lo}, {i + j + 1 - (i*j)/8, "VPMADD52HUQ", hi}} {`},
	{Name: "Montgomery carry",
		Old: `		codegen.Ins("VPSRLQ $52, %s, %s", acc[i], t0)
		codegen.Ins("VPADDQ %s, %s, %s", t0, acc[i+1], acc[i+1])
		c[i+1] = codegen.Add(c[i+1], codegen.Rsh(c[i], 52))`,
		New: `		c[i+1] = codegen.Add(c[i+1], codegen.Rsh(c[i], 52))`},
	{Name: "fold shift",
		Old: `			codegen.Ins("VPSRLQ $48, %s, %s", v[4], t0)`,
		New: `			codegen.Ins("VPSRLQ $49, %s, %s", v[4], t0)`},
	{Name: "bias limb written wrong",
		Old: `			codegen.Ins("VPADDQ.BCST %s, %s, %s", g.f.mem(d[j].Uint64()), r[j], r[j])`,
		New: `			codegen.Ins("VPADDQ.BCST %s, %s, %s", g.f.mem(d[j].Uint64()+uint64(j/4)), r[j], r[j])`},
	{Name: "table-scan bound",
		Old: `	for j := 0; j < n; j++ {
		codegen.Note("j = %d: mask`,
		New: `	for j := 0; j < n-1; j++ {
		codegen.Note("j = %d: mask`},
	{Name: "mask skipped",
		Old: `		codegen.Ins("VPSRAQ $63, Z17, Z17")`,
		New: ``},
	{Name: "sign mask address",
		Old: `	codegen.Ins("VMOVDQU64 64(SI)(AX*1), Z17")`,
		New: `	codegen.Ins("VMOVDQU64 (SI)(AX*1), Z17")`},
	{Name: "window doublings",
		Old: `	codegen.Ins("MOVQ $5, DX")`,
		New: `	codegen.Ins("MOVQ $4, DX")`},
	{Name: "chain loop count",
		Old: `		codegen.Ins("MOVQ $%d, CX", n)
		l := g.label("sq")`,
		New: `		codegen.Ins("MOVQ $%d, CX", n+n/32)
		l := g.label("sq")`},
	{Name: "chain exponent",
		Old: `		c.sqn("t", "t", 30)`,
		New: `		c.sqn("t", "t", 29)`},
	{Name: "b3 coefficient",
		Old: `		g.mulSmall(Y3, Y3, 21, "step 24")`,
		New: `		g.mulSmall(Y3, Y3, 20, "step 24")`},
	{Name: "b coefficient",
		Old: `	return slot{k: f.toM(f.b), name: "b"}`,
		New: `	return slot{k: f.toM(codegen.Add(f.b, big.NewInt(1))), name: "b"}`},
	{Name: "swapped subtraction",
		Old: `		g.lin(Z3, "step 23", 1, []lterm{lt(1, t1), lt(-1, X3)})`,
		New: `		g.lin(Z3, "step 23", 1, []lterm{lt(-1, t1), lt(1, X3)})`},
}

// TestMutations checks that the tests catch each mutation, by a failing
// test or by gen.go refusing to generate (codegen.Mutate: the mutated
// gen.go and its assembly replace the package's through the go command's
// -overlay flag). It takes several minutes: set ECDHX8_MUTATIONS=1.
func TestMutations(t *testing.T) {
	if os.Getenv("ECDHX8_MUTATIONS") == "" {
		t.Skip("set ECDHX8_MUTATIONS=1 to run the mutation test of gen.go")
	}
	requireIFMA(t)
	codegen.Mutate(t, "ifma_amd64.s", "ECDHX8_", mutations)
}
