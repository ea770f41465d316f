//go:build !purego

package mlkemavx

import (
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
	"github.com/fanseal/fanseal/internal/vecregs"
)

func requireAVX512(t testing.TB) {
	t.Helper()
	if !available {
		t.Skip("no AVX-512BW")
	}
}

func toInts(p *poly) (f [256]int) {
	for i, c := range p {
		f[i] = refMod(int(c))
	}
	return f
}

// randPoly fills p with coefficients in [-b, b], or, on some draws, only
// the extremes -b and b (the inputs that reach a bound).
func randPoly(rng *rand.Rand, p *poly, b int) {
	extreme := rng.IntN(4) == 0
	for i := range p {
		if extreme {
			p[i] = int16(b * (1 - 2*rng.IntN(2)))
		} else {
			p[i] = int16(rng.IntN(2*b+1) - b)
		}
	}
}

// bounds reads the bounds that gen.go states in ntt_amd64.s.
func bounds(t *testing.T) map[string][2]int {
	t.Helper()
	src, err := os.ReadFile("ntt_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][2]int{}
	re := regexp.MustCompile(`(?m)^//\t(\w+): +takes \|\w\| <= (\d+).*leaves \|c\| <= (\d+)$`)
	for _, s := range re.FindAllStringSubmatch(string(src), -1) {
		in, _ := strconv.Atoi(s[2])
		out, _ := strconv.Atoi(s[3])
		m[s[1]] = [2]int{in, out}
	}
	if len(m) != 3 {
		t.Fatalf("ntt_amd64.s states %d bounds, want 3", len(m))
	}
	return m
}

func checkBound(t *testing.T, what string, p *poly, b int) {
	t.Helper()
	for i, c := range p {
		if int(c) > b || int(c) < -b {
			t.Fatalf("%s: coefficient %d is %d, past the stated bound %d", what, i, c, b)
		}
	}
}

// TestArithmetic checks ntt, invNTT and basemulAcc against the from-spec
// reference mod q, on inputs up to the bounds each function states
// (extremes included), and that every output stays within the bound the
// generated file states for it (TestBounds, in effect, for every case).
func TestArithmetic(t *testing.T) {
	requireAVX512(t)
	bs := bounds(t)
	rng := rand.New(rand.NewPCG(5, 6))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for it := range n {
		var p poly
		randPoly(rng, &p, bs["ntt"][0])
		want := refNTT(toInts(&p))
		ntt(&p)
		if toInts(&p) != want {
			t.Fatalf("iteration %d: ntt differs from FIPS 203 Algorithm 9", it)
		}
		checkBound(t, "ntt", &p, bs["ntt"][1])

		randPoly(rng, &p, bs["invNTT"][0])
		want = refInvNTT(toInts(&p))
		invNTT(&p)
		got := toInts(&p)
		for i := range got {
			// invNTT leaves the inverse times 2^16 mod q.
			if got[i] != want[i]*65536%q {
				t.Fatalf("iteration %d: invNTT differs from FIPS 203 Algorithm 10 at %d", it, i)
			}
		}
		checkBound(t, "invNTT", &p, bs["invNTT"][1])

		var a, b [3]poly
		var sum [256]int
		for j := range 3 {
			randPoly(rng, &a[j], bs["basemulAcc"][0])
			randPoly(rng, &b[j], 32767)
			if rng.IntN(8) == 0 {
				b[j][rng.IntN(256)] = -32768
			}
			h := refMulNTT(toInts(&a[j]), toInts(&b[j]))
			for i := range sum {
				sum[i] = refMod(sum[i] + h[i])
			}
		}
		var out poly
		basemulAcc(&out, &a, &b)
		got = toInts(&out)
		for i := range got {
			// basemulAcc leaves the sum times 2^-16: 2^16·got = sum.
			if got[i]*65536%q != sum[i] {
				t.Fatalf("iteration %d: basemulAcc differs from FIPS 203 Algorithm 11 at %d", it, i)
			}
		}
		checkBound(t, "basemulAcc", &out, bs["basemulAcc"][1])
	}
}

// TestRoundTrip checks invNTT(basemulAcc(ntt(x), 1)) = x: the factors 2^16
// and 2^-16 cancel through the dot product with the NTT of one.
func TestRoundTrip(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(7, 8))
	var one poly
	one[0] = 1
	ntt(&one)
	for range 200 {
		var x poly
		randPoly(rng, &x, q)
		orig := toInts(&x)
		a := [3]poly{one}
		var b [3]poly
		b[0] = x
		ntt(&b[0])
		var out poly
		basemulAcc(&out, &a, &b)
		invNTT(&out)
		if toInts(&out) != orig {
			t.Fatal("invNTT(ntt(x) ∘ ntt(1)) != x")
		}
	}
}

// TestCBD2 checks the noise sampler against Algorithm 8: every byte value
// in every position (a buffer of one repeated byte, each value), random
// buffers, and a polynomial that held other coefficients before.
func TestCBD2(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 256 + 2000 {
		var buf [prfLen]byte
		for i := range buf {
			if n < 256 {
				buf[i] = byte(n)
			} else {
				buf[i] = byte(rng.Uint32())
			}
		}
		var p poly
		for i := range p {
			p[i] = int16(rng.Uint32())
		}
		cbd2(&p, &buf)
		want := refCBD2(buf[:])
		for i, c := range p {
			if int(c) != want[i] {
				t.Fatalf("buffer %d: coefficient %d = %d, want %d", n, i, c, want[i])
			}
		}
	}
}

// TestBarrett checks the Barrett reduction the header argues (the
// instructions' arithmetic, transcribed) for every int16: 0 <= r <= q.
func TestBarrett(t *testing.T) {
	for a := -32768; a <= 32767; a++ {
		t0 := int16((a * 20159) >> 16)
		t0 >>= 10
		r := int16(a) - t0*q
		if r < 0 || r > q || refMod(int(r)) != refMod(a) {
			t.Fatalf("Barrett(%d) = %d", a, r)
		}
	}
}

// TestGeneratedNTT checks that ntt_amd64.s is what gen.go writes.
func TestGeneratedNTT(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run gen.go")
	}
	codegen.CheckGenerated(t, "ntt_amd64.s")
}

// TestRegistersWiped checks that every assembly function leaves all 32
// vector registers and the mask registers zero: they held the noise, the
// message, the secret key or coefficients derived from them.
func TestRegistersWiped(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(15, 16))
	var p, q2 poly
	var a, b [3]poly
	var buf [prfLen]byte
	var c10 [320]byte
	var c4 [128]byte
	var m [32]byte
	randPoly(rng, &p, q)
	randPoly(rng, &q2, 2)
	for i := range a {
		randPoly(rng, &a[i], q)
		randPoly(rng, &b[i], q)
	}
	fill(rng, buf[:])
	fill(rng, c10[:])
	fill(rng, c4[:])
	fill(rng, m[:])
	var regs vecregs.Regs
	for _, f := range []struct {
		name string
		run  func()
	}{
		{"ntt", func() { ntt(&p); vecregs.Read(&regs) }},
		{"invNTT", func() { invNTT(&p); vecregs.Read(&regs) }},
		{"basemulAcc", func() { basemulAcc(&p, &a, &b); vecregs.Read(&regs) }},
		{"cbd2", func() { cbd2(&q2, &buf); vecregs.Read(&regs) }},
		{"compress10", func() { compress10(&c10, &p, &q2); vecregs.Read(&regs) }},
		{"compress4", func() { compress4(&c4, &p, &q2, &m); vecregs.Read(&regs) }},
		{"message", func() { message(&m, &p, &a[0]); vecregs.Read(&regs) }},
		{"decode10", func() { decode10(&p, &c10); vecregs.Read(&regs) }},
		{"decode4", func() { decode4(&p, &c4); vecregs.Read(&regs) }},
	} {
		regs = vecregs.Regs{}
		f.run()
		if nz := regs.NonZero(1); len(nz) > 0 { // K1: the only mask register the engine writes
			t.Errorf("%s leaves %v nonzero", f.name, nz)
		}
	}
}
