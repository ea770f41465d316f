//go:build !purego

package k256

import (
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// mutations are errors in gen.go the tests must catch. All but "chain
// exponent" change the code gen.go writes and not the bounds it proves, so
// that only the tests can notice; gen.go refuses "chain exponent" itself.
// A run (K256_MUTATIONS=1) logs which tests caught each; the last one
// gave:
//
//	second fold dropped:     FieldOps
//	final subtraction gone:  FieldOps, FuzzField (seeds)
//	sum kept when it wraps:  FieldOps, and all below
//	difference without p:    FieldOps, and all below but FuzzField
//	product carry lost:      FieldOps, and all below
//	square shift carry lost: FieldOps, and all below
//	b3 coefficient:          FieldOps, and all below
//	fold constant:           FieldOps, and all below
//	addition step sign:      PointFormulas, ECDH, PublicKey, BaseMult, PublicKeyTableAfterThreshold
//	doubling step sign:      PointFormulas, ECDH, PublicKey, BaseMult, PublicKeyTableAfterThreshold
//	beta:                    GLVEndomorphism, ECDH, PublicKey, BaseMult, PublicKeyTableAfterThreshold
//	split term dropped:      GLVSplit, ECDH, PublicKey, BaseMult, PublicKeyTableAfterThreshold
//	rounding skipped:        GLVSplit, ECDH, PublicKey, BaseMult, PublicKeyTableAfterThreshold
//	chain exponent:          gen.go ("inversion chain gives ...")
//
// ("All below": PointFormulas, ECDH, PublicKey, BaseMult,
// PublicKeyTableAfterThreshold, FuzzField.) The first two show why the
// field's tests take the edges of its bounds: random elements almost
// never reach a second fold or a sum between p and 2^256.
var mutations = []codegen.Mutation{
	{Name: "second fold dropped",
		Old: `	line("\tr0, k = bits.Add64(r0, c&-k, 0)")`,
		New: `	line("\tr0, k = bits.Add64(r0, 0, 0)")`},
	{Name: "final subtraction gone",
		Old: `	line("\tm := -b // all ones where r < p: keep r")`,
		New: `	line("\tm := -b | ^b // all ones: keep r")`},
	{Name: "sum kept when it wraps",
		Old: `	line("\tm := -(b &^ k) // all ones where s < p and no carry: keep s")`,
		New: `	line("\tm := -b // all ones where s < p: keep s")`},
	{Name: "difference without p",
		Old: `	line("\tm := -b")`,
		New: `	line("\tm := -b & 0")`},
	{Name: "product carry lost",
		Old: `			if j > 0 {
				line("\tl, k = bits.Add64(l, cy, 0)")
				line("\th += k")
			}
			line("\tt%d, cy = l, h", t)
		}
		line("\tt%d = cy", i+4)
	}
	reduceWide(pm)`,
		New: `			if j > 0 {
				line("\tl, k = bits.Add64(l, cy, 0)")
			}
			line("\tt%d, cy = l, h", t)
		}
		line("\tt%d = cy", i+4)
	}
	reduceWide(pm)`},
	{Name: "square shift carry lost",
		Old: `		line("\tt%d = t%d<<1 | t%d>>63", j, j, j-1)`,
		New: `		line("\tt%d = t%d<<1 | t%d>>63&0", j, j, j-1)`},
	{Name: "b3 coefficient",
		Old: `		line("\th, l = bits.Mul64(x[%d], 21)", j)`,
		New: `		line("\th, l = bits.Mul64(x[%d], 20)", j)`},
	{Name: "fold constant",
		Old: `	line("const c = %#x", c)`,
		New: `	line("const c = %#x", codegen.Add(c, codegen.Bi(2)))`},
	{Name: "addition step sign",
		Old: `{"Z3", "t1", "+", "t2"}`,
		New: `{"Z3", "t1", "-", "t2"}`},
	{Name: "doubling step sign",
		Old: `{"t0", "t0", "-", "t2"}`,
		New: `{"t0", "t0", "+", "t2"}`},
	{Name: "beta",
		Old: `	line("var glvBeta = fe%s", strings.TrimPrefix(limbsLine(beta, 4), "[4]uint64"))`,
		New: `	line("var glvBeta = fe%s", strings.TrimPrefix(limbsLine(codegen.Add(beta, codegen.Bi(1)), 4), "[4]uint64"))`},
	{Name: "split term dropped",
		Old: `	line("\tmulLimbs(p[:], c2[:], glvB2[:])")
	line("\tsub320(&t2, &p)")`,
		New: `	line("\tmulLimbs(p[:], c2[:], glvB2[:])")`},
	{Name: "rounding skipped",
		Old: `	t[5], c = bits.Add64(t[5], 1<<63, 0)`,
		New: `	t[5], c = bits.Add64(t[5], 0, 0)`},
	{Name: "chain exponent",
		Old: `	ch.sqn("t", "x223", 23)`,
		New: `	ch.sqn("t", "x223", 22)`},
}

// TestMutations checks that the tests catch each mutation, by a failing
// test or by gen.go refusing to generate (codegen.Mutate). It takes a
// minute or two: set K256_MUTATIONS=1.
func TestMutations(t *testing.T) {
	if os.Getenv("K256_MUTATIONS") == "" {
		t.Skip("set K256_MUTATIONS=1 to run the mutation test of gen.go")
	}
	codegen.Mutate(t, "k256_gen.go", "K256_", mutations)
}
