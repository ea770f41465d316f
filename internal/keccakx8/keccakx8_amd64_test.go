//go:build !purego

package keccakx8

import (
	"bytes"
	"crypto/sha3"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
	"github.com/fanseal/fanseal/internal/vecregs"
)

func requireAVX512(t testing.TB) {
	if !Available {
		t.Skip("no AVX-512F")
	}
}

// sponge runs FIPS 202's sponge over the eight states of one State, a
// message per state, with rate and domain-separation byte ds (0x1f for
// SHAKE, 0x06 for SHA-3) each: the reference use of XOR, Permute and Read.
func sponge(msgs [8][]byte, rate [8]int, ds [8]byte, outLen int) [8][]byte {
	var s State
	var out [8][]byte
	blocks := 0
	for l := range 8 {
		blocks = max(blocks, len(msgs[l])/rate[l]+1)
	}
	// Absorb: state l takes its block b (or its padded last block, or
	// nothing once done) before each permutation.
	for b := range blocks {
		for l := range 8 {
			m, r := msgs[l], rate[l]
			switch n := len(m) / r; {
			case b < n:
				s.XOR(l, 0, m[b*r:(b+1)*r])
			case b == n:
				s.XOR(l, 0, m[b*r:])
				s.XOR(l, len(m)-b*r, []byte{ds[l]})
				s.XOR(l, r-1, []byte{0x80})
			}
		}
		// A state done absorbing must not be permuted again before its
		// squeeze: run the others' extra blocks on a copy.
		saved := s
		s.Permute()
		for l := range 8 {
			if len(msgs[l])/rate[l] < b {
				for i := range 25 {
					s[i][l] = saved[i][l]
				}
			}
		}
	}
	for l := range 8 {
		var one State
		for i := range 25 {
			one[i][l] = s[i][l]
		}
		for len(out[l]) < outLen {
			n := min(rate[l], outLen-len(out[l]))
			buf := make([]byte, n)
			one.Read(l, 0, buf)
			out[l] = append(out[l], buf...)
			if len(out[l]) < outLen {
				one.Permute()
			}
		}
	}
	return out
}

// TestAgainstSHA3 checks eight streams at once, mixed SHAKE128, SHAKE256,
// SHA3-256 and SHA3-512 of random lengths (several blocks, every
// alignment), against crypto/sha3.
func TestAgainstSHA3(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []struct {
		name string
		rate int
		ds   byte
		sum  func(m []byte, n int) []byte
	}{
		{"SHAKE128", 168, 0x1f, func(m []byte, n int) []byte { return sha3.SumSHAKE128(m, n) }},
		{"SHAKE256", 136, 0x1f, func(m []byte, n int) []byte { return sha3.SumSHAKE256(m, n) }},
		{"SHA3-256", 136, 0x06, func(m []byte, n int) []byte { h := sha3.Sum256(m); return h[:min(n, 32)] }},
		{"SHA3-512", 72, 0x06, func(m []byte, n int) []byte { h := sha3.Sum512(m); return h[:min(n, 64)] }},
	}
	iters := 2000
	if testing.Short() {
		iters = 200
	}
	for it := range iters {
		var msgs [8][]byte
		var rate [8]int
		var ds [8]byte
		var kind [8]int
		outLen := 1 + rng.IntN(600)
		for l := range 8 {
			kind[l] = rng.IntN(len(kinds))
			msgs[l] = make([]byte, rng.IntN(700))
			for i := range msgs[l] {
				msgs[l][i] = byte(rng.Uint32())
			}
			rate[l], ds[l] = kinds[kind[l]].rate, kinds[kind[l]].ds
		}
		got := sponge(msgs, rate, ds, outLen)
		for l := range 8 {
			k := kinds[kind[l]]
			want := k.sum(msgs[l], outLen)
			if !bytes.Equal(got[l][:len(want)], want) {
				t.Fatalf("iteration %d, state %d: %s of %d bytes: got %x, want %x", it, l, k.name, len(msgs[l]), got[l][:len(want)], want)
			}
		}
	}
}

// TestLanesIndependent checks that each state's permutation depends on
// its own lanes only: changing one bit of state l changes no other state.
func TestLanesIndependent(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(3, 4))
	var s State
	for i := range s {
		for l := range s[i] {
			s[i][l] = rng.Uint64()
		}
	}
	for l := range 8 {
		a, b := s, s
		b[rng.IntN(25)][l] ^= 1 << rng.IntN(64)
		a.Permute()
		b.Permute()
		for i := range 25 {
			for m := range 8 {
				if m != l && a[i][m] != b[i][m] {
					t.Fatalf("a bit of state %d changed state %d", l, m)
				}
			}
		}
	}
}

// TestGenerated checks that keccak_amd64.s is what gen.go writes.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run gen.go")
	}
	codegen.CheckGenerated(t, "keccak_amd64.s")
}

// mutations are errors in gen.go that the tests must catch.
var mutations = []codegen.Mutation{
	{Name: "round constant", Old: `out[i] |= rcBit(j+7*i) << (1<<j - 1)`, New: `out[i] |= rcBit(j+7*i+1) << (1<<j - 1)`},
	{Name: "rho offset", Old: `r[x+5*y] = ((t + 1) * (t + 2) / 2) % 64`, New: `r[x+5*y] = ((t + 1) * (t + 2) / 2) % 63`},
	{Name: "pi", Old: `next[y+5*((2*x+3*y)%5)] = r`, New: `next[y+5*((2*x+2*y)%5)] = r`},
	{Name: "theta rotation", Old: `codegen.Ins("VPROLQ $1, %s, %s", c[(x+1)%5], t0)`, New: `codegen.Ins("VPROLQ $2, %s, %s", c[(x+1)%5], t0)`},
	{Name: "theta column", Old: `codegen.Ins("VPXORQ %s, %s, %s", reg[x+20], c[x], c[x])`, New: ``},
	{Name: "chi", Old: `return a ^ (1-b)&c`, New: `return a ^ b&c`},
	{Name: "chi wrap", Old: `codegen.Ins("VPTERNLOGQ $%#02x, %s, %s, %s", chi, t1, t0, row[4])`, New: `codegen.Ins("VPTERNLOGQ $%#02x, %s, %s, %s", chi, t0, t1, row[4])`},
	{Name: "iota dropped", Old: `codegen.Ins("VPXORQ.BCST rc<>+%d(SB), %s, %s", 8*round, reg[0], reg[0])`, New: `if round != 23 {
			codegen.Ins("VPXORQ.BCST rc<>+%d(SB), %s, %s", 8*round, reg[0], reg[0])
		}`},
	{Name: "23 rounds", Old: `for round := range 24 {`, New: `for round := range 23 {`},
	{Name: "registers kept", Old: `codegen.Wipe()`, New: `codegen.Ins("VZEROUPPER")
	codegen.Ins("RET")`},
}

// TestMutations checks that the tests catch each mutation of gen.go
// (codegen.Mutate). Set KECCAKX8_MUTATIONS=1.
func TestMutations(t *testing.T) {
	if os.Getenv("KECCAKX8_MUTATIONS") == "" {
		t.Skip("set KECCAKX8_MUTATIONS=1 to run the mutation test of gen.go")
	}
	requireAVX512(t)
	codegen.Mutate(t, "keccak_amd64.s", "KECCAKX8_", mutations)
}

func BenchmarkPermute(b *testing.B) {
	requireAVX512(b)
	var s State
	for b.Loop() {
		s.Permute()
	}
}

func BenchmarkSHAKE256Scalar(b *testing.B) {
	var seed [33]byte
	for b.Loop() {
		sha3.SumSHAKE256(seed[:], 128)
	}
}

// TestRegistersWiped checks that a permutation leaves all 32 vector
// registers zero: the states may invert to secrets.
func TestRegistersWiped(t *testing.T) {
	if !vecregs.Available {
		t.Skip("no AVX-512BW to read the registers")
	}
	var s State
	rng := rand.New(rand.NewPCG(17, 18))
	for i := range s {
		for l := range s[i] {
			s[i][l] = rng.Uint64()
		}
	}
	var regs vecregs.Regs
	s.Permute()
	vecregs.Read(&regs)
	if nz := regs.NonZero(); len(nz) > 0 {
		t.Errorf("Permute leaves %v nonzero", nz)
	}
}
