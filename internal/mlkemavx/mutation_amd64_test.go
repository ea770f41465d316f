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
	{Name: "nibble spread", Old: `codegen.Ins("VPSLLD $12, %s, %s", x, t)`, New: `codegen.Ins("VPSLLD $8, %s, %s", x, t)`},
	{Name: "cbd2 offset", Old: `{"Z21", 0x00040004}`, New: `{"Z21", 0x00040003}`},
	{Name: "compress10 rounding", Old: `dwords(c10Add), add`, New: `dwords(c10Add/2), add`},
	{Name: "compress10 mask", Old: `dwords(1023), mask`, New: `dwords(2047), mask`},
	{Name: "compress10 pairing", Old: `dwords(1|1024<<16), madd`, New: `dwords(1|512<<16), madd`},
	{Name: "compress10 qword join", Old: `dwords(12, 0), sllv`, New: `dwords(0, 12), sllv`},
	{Name: "compress10 gather", Old: `perm[w] = int16(w/5*8 + w%5)`, New: `perm[w] = int16(w/5*4 + w%5)`},
	{Name: "freeze add-back", Old: `codegen.Ins("VPANDD %s, %s, %s", zQ, t, t)`, New: `codegen.Ins("VPANDD %s, %s, %s", zV, t, t)`},
	{Name: "compress4 message bit", Old: `vec(splat((q+1)/2)), half`, New: `vec(splat((q-1)/2)), half`},
	{Name: "compress4 message word", Old: `codegen.Ins("KMOVD %d(SI), K1", 4*j)`, New: `codegen.Ins("KMOVD %d(SI), K1", 4*(j^1))`},
	{Name: "compress4 nibble", Old: `dwords(1|16<<16), madd`, New: `dwords(16|1<<16), madd`},
	{Name: "message bit", Old: `codegen.Ins("VPSRLW $7, %s, %s", x, x)`, New: `codegen.Ins("VPSRLW $6, %s, %s", x, x)`},
	{Name: "message rounding", Old: `vec(splat(64)), add`, New: `vec(splat(63)), add`},
	{Name: "decode10 shift", Old: `shift[8*l+c] = int16(10 * j % 8)`, New: `shift[8*l+c] = int16(10 * j % 6)`},
	{Name: "decode10 spread", Old: `perm[8*l+w] = int16(5*l + w)`, New: `perm[8*l+w] = int16(5*l + w + 1)`},
	{Name: "decode10 rounding", Old: `codegen.Ins("VPSLLW $5, %s, %s", x, x)`, New: `codegen.Ins("VPSLLW $4, %s, %s", x, x)`},
	{Name: "decode4 nibble", Old: `dwords(0x0f0000), hi`, New: `dwords(0x0f00000), hi`},
	{Name: "compress4 registers kept", Old: `codegen.Ins("VMOVDQU X0, %d(DI)", 16*j)
	}
	codegen.Wipe("K1")`, New: `codegen.Ins("VMOVDQU X0, %d(DI)", 16*j)
	}
	codegen.Ins("VZEROUPPER")
	codegen.Ins("RET")`},
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
