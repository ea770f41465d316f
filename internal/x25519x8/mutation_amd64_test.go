//go:build !purego

package x25519x8

import (
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// mutations are errors in gen.go that the tests must catch: each changes
// the assembly (or the comb's table) that gen.go writes. A run
// (X25519X8_MUTATIONS=1) logs which tests caught each; the last one gave:
//
//	entry index, sign swap dropped, negation dropped, three doublings,
//	madd G sign, dbl H sign, row step, digit step, table rows:
//	                 CombEdges, CombRandom, RFC7748DiffieHellman, ScalarBaseMult,
//	                 Aliasing, FuzzScalarBaseMult (seeds)
//	carry dropped:   the field, ladder and comb tests (FieldOps, Finish,
//	                 Wycheproof, RFC7748*, Differential*, Comb*, ...)
//	a24 constant:    the field and ladder tests (the comb does not use it)
//	fold constant:   the field, ladder and comb tests
//	finish2 denominator, cross factor, outputs swapped:
//	                 Finish2 and every test through checkBatch
var mutations = []codegen.Mutation{
	{Name: "entry index",
		Old: `codegen.Ins("VPBROADCASTQ %d(SI), K1, Z%d", m*entryBytes+c*40+j*8, 5*c+j)`,
		New: `codegen.Ins("VPBROADCASTQ %d(SI), K1, Z%d", (m%7)*entryBytes+c*40+j*8, 5*c+j)`},
	{Name: "sign swap dropped",
		Old: `		codegen.Ins("VPXORQ %s, Z%d, Z%d", t0, j, j)
		codegen.Ins("VPXORQ %s, Z%d, Z%d", t0, 5+j, 5+j)`,
		New: ``},
	{Name: "negation dropped",
		Old: `codegen.Ins("VPXORQ %s, Z%d, Z%d", t0, 10+j, 10+j)`,
		New: ``},
	{Name: "three doublings",
		Old: `	for range 4 {
		dbl()`,
		New: `	for range 3 {
		dbl()`},
	{Name: "madd G sign",
		Old: `addc(sTg, sTd, sTc)`,
		New: `subc(sTg, sTd, sTc)`},
	{Name: "dbl H sign",
		Old: `negc(sTh, sTh)`,
		New: ``},
	{Name: "row step",
		Old: `codegen.Ins("ADDQ $%d, SI", 8*entryBytes)`,
		New: `codegen.Ins("ADDQ $%d, SI", 7*entryBytes)`},
	{Name: "digit step",
		Old: `codegen.Ins("ADDQ $256, BX")`,
		New: `codegen.Ins("ADDQ $128, BX")`},
	{Name: "table rows",
		Old: `for range 8 { // base = 256 * base`,
		New: `for range 7 { // base = 128 * base`},
	{Name: "carry dropped",
		Old: `codegen.Ins("VPADDQ %s, %s, %s", t0, v[j+1], v[j+1])`,
		New: `if j != 2 {
			codegen.Ins("VPADDQ %s, %s, %s", t0, v[j+1], v[j+1])
		}`},
	{Name: "finish2 denominator",
		Old: `mulc(sInvZ, z1, z2) // w`,
		New: `mulc(sInvZ, z1, z1) // w`},
	{Name: "finish2 cross factor",
		Old: `mulc(x2, x2, z1)`,
		New: `mulc(x2, x2, z2)`},
	{Name: "finish2 outputs swapped",
		Old: `storeArg(arg, sBoth[2*i])`,
		New: `storeArg(arg, sBoth[2-2*i])`},
	{Name: "a24 constant",
		Old: `DATA consts<>+32(SB)/8, $121665`,
		New: `DATA consts<>+32(SB)/8, $121666`},
	{Name: "fold constant",
		Old: `DATA consts<>+24(SB)/8, $608`,
		New: `DATA consts<>+24(SB)/8, $609`},
}

// TestMutations checks that the tests catch each mutation (codegen.Mutate:
// the mutated gen.go and its assembly replace the package's through the go
// command's -overlay flag). It takes a minute or two: set
// X25519X8_MUTATIONS=1.
func TestMutations(t *testing.T) {
	if os.Getenv("X25519X8_MUTATIONS") == "" {
		t.Skip("set X25519X8_MUTATIONS=1 to run the mutation test of gen.go")
	}
	requireIFMA(t)
	codegen.Mutate(t, "ifma_amd64.s", "X25519X8_", mutations)
}
