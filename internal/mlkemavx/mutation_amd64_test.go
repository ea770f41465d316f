//go:build !purego

package mlkemavx

import (
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// mutations are errors in gen.go that the tests must catch: each changes
// the assembly that gen.go writes, or the bounds it states. A run
// (MLKEMAVX_MUTATIONS=1) logs which tests caught each.
var mutations = []codegen.Mutation{
	{Name: "ntt zeta index", Old: `return 128/L + c/(2*L)`, New: `return 128/L + c/(2*L) + 1`},
	{Name: "invNTT zeta index", Old: `return 256/L - 1 - c/(2*L)`, New: `return 256/L - 2 - c/(2*L)`},
	{Name: "Barrett dropped", Old: `		barrett(x)
		barrett(y)`, New: ``},
	{Name: "Barrett shift", Old: `codegen.Ins("VPSRAW $10, %s, %s", t, t)`, New: `codegen.Ins("VPSRAW $11, %s, %s", t, t)`},
	{Name: "reduction threshold", Old: `if maxBound(b, xs)+maxBound(b, ys) > 32767 {`, New: `if maxBound(b, xs)+maxBound(b, ys) > 65534 {`},
	{Name: "mont high product", Old: `codegen.Ins("VPMULHW %s, %s, %s", zQ, t1, t1)`, New: `codegen.Ins("VPMULLW %s, %s, %s", zQ, t1, t1)`},
	{Name: "butterfly difference", Old: `codegen.Ins("VPSUBW %s, %s, %s", t, x, y)`, New: `codegen.Ins("VPSUBW %s, %s, %s", x, t, y)`},
	{Name: "inverse butterfly difference", Old: `codegen.Ins("VPSUBW %s, %s, %s", x, y, t)`, New: `codegen.Ins("VPSUBW %s, %s, %s", y, x, t)`},
	{Name: "permutation tables", Old: `codegen.Ins("VPERMI2W %s, %s, %s", b.reg[1], b.reg[0], d)`, New: `codegen.Ins("VPERMI2W %s, %s, %s", b.reg[0], b.reg[1], d)`},
	{Name: "final factor", Old: `f := 1 << (16 - 7)`, New: `f := 1 << (16 - 6)`},
	{Name: "pair mask", Old: `codegen.Ins("MOVL $0xaaaaaaaa, CX")`, New: `codegen.Ins("MOVL $0x55555555, CX")`},
	{Name: "pair swap", Old: `codegen.Ins("VPROLD $16, %s, %s", zb, zb)`, New: `codegen.Ins("VPROLD $8, %s, %s", zb, zb)`},
	{Name: "gamma", Old: `g[2*w+1] = pow(zeta0, 2*bitrev7(16*v+w)+1)`, New: `g[2*w+1] = pow(zeta0, 2*bitrev7(16*v+w))`},
	{Name: "accumulation", Old: `codegen.Ins("VPADDD %s, %s, %s", t, acc1, acc1)`, New: `codegen.Ins("VPSUBD %s, %s, %s", t, acc1, acc1)`},
	{Name: "Montgomery word", Old: `ql[i] = q`, New: `ql[i+1] = q`},
	{Name: "cbd2 pair sum", Old: `{"Z16", 0x55}`, New: `{"Z16", 0x11}`},
	{Name: "cbd2 difference", Old: `codegen.Ins("VPSUBD Z1, Z0, Z0")`, New: `codegen.Ins("VPADDD Z1, Z0, Z0")`},
	{Name: "cbd2 high nibble", Old: `codegen.Ins("VPSLLD $12, Z0, Z1")`, New: `codegen.Ins("VPSLLD $8, Z0, Z1")`},
	{Name: "cbd2 offset", Old: `{"Z21", 0x00040004}`, New: `{"Z21", 0x00040003}`},
	{Name: "cbd2 byte order", Old: `codegen.Ins("VPMOVZXBD %d(SI), Z0", 16*j)`, New: `codegen.Ins("VPMOVZXBD %d(SI), Z0", 16*(7-j))`},
}

// TestMutations checks that the tests catch each mutation of gen.go
// (codegen.Mutate). Set MLKEMAVX_MUTATIONS=1; it takes a few minutes.
func TestMutations(t *testing.T) {
	if os.Getenv("MLKEMAVX_MUTATIONS") == "" {
		t.Skip("set MLKEMAVX_MUTATIONS=1 to run the mutation test of gen.go")
	}
	requireAVX512(t)
	codegen.Mutate(t, "ntt_amd64.s", "MLKEMAVX_", mutations)
}
