//go:build !purego

package x25519x8

import (
	"math/big"
	mrand "math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
	"github.com/fanseal/fanseal/internal/vecregs"
)

// The forms of avx2_amd64.s, as inclusive limb bounds, read from its
// header (the claims TestIntervals checks the assembly against).
func avx2Forms(t testing.TB) map[string][10]uint64 {
	t.Helper()
	forms := map[string][10]uint64{}
	for _, m := range regexp.MustCompile(`(?m)^//\tform (\w+): (.*)$`).FindAllStringSubmatch(avx2Source, -1) {
		fields := strings.Fields(m[2])
		if len(fields) != 10 {
			continue
		}
		var f [10]uint64
		for j, s := range fields {
			v, err := strconv.ParseUint(s, 0, 64)
			if err != nil {
				t.Fatal(err)
			}
			f[j] = v
		}
		forms[m[1]] = f
	}
	for _, name := range []string{"unpacked", "tight", "gin", "fin", "wide"} {
		if _, ok := forms[name]; !ok {
			t.Fatalf("no form %s in avx2_amd64.s", name)
		}
	}
	return forms
}

// vecEngine is one of the two vector engines' functions, on its pass's
// lanes (4 or 8) through pointers to limb 0 of lane 0.
type vecEngine struct {
	name   string
	lanes  int
	ok     bool
	mul    func(out, a, b *fe10, s *scratchVec)
	square func(out, a *fe10, s *scratchVec)
	carry  func(out, a *fe10)
	invert func(out, z *fe10, s *scratchVec)
}

func vecEngines() []vecEngine {
	s2 := func(s *scratchVec) *[scratchWordsAVX2]uint64 { return (*[scratchWordsAVX2]uint64)(s[:]) }
	s5 := func(s *scratchVec) *[scratchWordsAVX512]uint64 { return (*[scratchWordsAVX512]uint64)(s) }
	return []vecEngine{
		{"avx2", 4, hasAVX2,
			func(out, a, b *fe10, s *scratchVec) { feMulAVX2(at(out, 0), at(a, 0), at(b, 0), s2(s)) },
			func(out, a *fe10, s *scratchVec) { feSquareAVX2(at(out, 0), at(a, 0), s2(s)) },
			func(out, a *fe10) { feCarryAVX2(at(out, 0), at(a, 0)) },
			func(out, z *fe10, s *scratchVec) { invertAVX2(at(out, 0), at(z, 0), s2(s)) }},
		{"avx512f", 8, hasAVX512F,
			func(out, a, b *fe10, s *scratchVec) { feMulAVX512(at(out, 0), at(a, 0), at(b, 0), s5(s)) },
			func(out, a *fe10, s *scratchVec) { feSquareAVX512(at(out, 0), at(a, 0), s5(s)) },
			func(out, a *fe10) { feCarryAVX512(at(out, 0), at(a, 0)) },
			func(out, z *fe10, s *scratchVec) { invertAVX512(at(out, 0), at(z, 0), s5(s)) }},
	}
}

// forEachVec runs f for each vector engine this CPU has, as a subtest.
func forEachVec(t *testing.T, f func(t *testing.T, e vecEngine)) {
	for _, e := range vecEngines() {
		t.Run("engine="+e.name, func(t *testing.T) {
			if !e.ok {
				t.Skipf("no %s on this CPU", e.name)
			}
			f(t, e)
		})
	}
}

// value10 returns lane l of v as an integer (not reduced mod p).
func value10(v *fe10, l int) *big.Int {
	x := new(big.Int)
	for j := 9; j >= 0; j-- {
		x.Add(x, new(big.Int).Lsh(new(big.Int).SetUint64(v[j][l]), limbPos(j)))
	}
	return x
}

// sample10 fills lanes of v with limbs at most bound: lane 0 every limb at
// the bound (lane 1 too for the first operand), lane 2 zero, lane 3
// alternating between the bound and zero, and the other lanes random with
// a bias towards the bound.
func sample10(v *fe10, bound [10]uint64, r *mrand.Rand, first bool) {
	for j := range 10 {
		max := bound[j]
		for l := range Lanes {
			switch {
			case l == 0, l == 1 && first:
				v[j][l] = max
			case l == 1:
				v[j][l] = r.Uint64N(max + 1)
			case l == 2:
				v[j][l] = 0
			case l == 3:
				v[j][l] = max * uint64((j+1)%2)
			case r.IntN(4) == 0:
				v[j][l] = max - r.Uint64N(min(max+1, 1<<20))
			default:
				v[j][l] = r.Uint64N(max + 1)
			}
		}
	}
}

func checkBounds10(t *testing.T, what string, v *fe10, lanes int, bound [10]uint64) {
	t.Helper()
	for j := range 10 {
		for l := range lanes {
			if v[j][l] > bound[j] {
				t.Fatalf("%s: lane %d limb %d = %#x, above %#x", what, l, j, v[j][l], bound[j])
			}
		}
	}
}

// TestFieldOpsVec compares each field operation of the vector engines with
// math/big, on inputs at the edges of the forms the header claims they
// accept, and checks that the outputs are tight; lanes past the pass's are
// left alone.
func TestFieldOpsVec(t *testing.T) {
	forms := avx2Forms(t)
	ops := []struct {
		name     string
		ina, inb string
		run      func(e vecEngine, out, a, b *fe10, s *scratchVec)
		want     func(a, b *big.Int) *big.Int
	}{
		{"mul", "fin", "gin", func(e vecEngine, out, a, b *fe10, s *scratchVec) { e.mul(out, a, b, s) },
			func(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }},
		{"mul/tight", "tight", "tight", func(e vecEngine, out, a, b *fe10, s *scratchVec) { e.mul(out, a, b, s) },
			func(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }},
		{"square", "gin", "gin", func(e vecEngine, out, a, _ *fe10, s *scratchVec) { e.square(out, a, s) },
			func(a, _ *big.Int) *big.Int { return new(big.Int).Mul(a, a) }},
		{"carry", "wide", "wide", func(e vecEngine, out, a, _ *fe10, _ *scratchVec) { e.carry(out, a) },
			func(a, _ *big.Int) *big.Int { return a }},
	}
	iterations := 5_000
	if testing.Short() {
		iterations = 300
	}
	forEachVec(t, func(t *testing.T, e vecEngine) {
		r := mrand.New(mrand.NewPCG(1, 2))
		for _, op := range ops {
			t.Run(op.name, func(t *testing.T) {
				for range iterations {
					var a, b, out fe10
					var s scratchVec
					sample10(&a, forms[op.ina], r, true)
					sample10(&b, forms[op.inb], r, false)
					for l := e.lanes; l < Lanes; l++ {
						for j := range 10 {
							out[j][l] = 0xa5a5
						}
					}
					op.run(e, &out, &a, &b, &s)
					checkBounds10(t, op.name, &out, e.lanes, forms["tight"])
					for l := range Lanes {
						if l >= e.lanes {
							for j := range 10 {
								if out[j][l] != 0xa5a5 {
									t.Fatalf("lane %d past the pass was written", l)
								}
							}
							continue
						}
						x, y := value10(&a, l), value10(&b, l)
						if got, want := mod(value10(&out, l)), mod(op.want(x, y)); got.Cmp(want) != 0 {
							t.Fatalf("lane %d: %s(%x, %x) = %x, want %x", l, op.name, x, y, got, want)
						}
					}
				}
			})
		}
	})
}

// TestInvertVec checks the inversion: out = z^(p-2), tight, for z in the
// form gin, including z = 0 and other representations of 0 (p, 2p).
func TestInvertVec(t *testing.T) {
	forms := avx2Forms(t)
	pm2 := new(big.Int).Sub(p, big.NewInt(2))
	forEachVec(t, func(t *testing.T, e vecEngine) {
		r := mrand.New(mrand.NewPCG(3, 4))
		for i := range 40 {
			var z, out fe10
			var s scratchVec
			sample10(&z, forms["gin"], r, i%2 == 0)
			if i == 0 {
				for l, k := range []int64{0, 1, 2} {
					zp := new(big.Int).Mul(p, big.NewInt(k))
					for j := range 10 {
						z[j][l] = new(big.Int).Rsh(zp, limbPos(j)).Uint64() & (1<<limbWidth(j) - 1)
					}
					if k == 2 { // 2p's top limb has a 26th bit
						z[9][l] = new(big.Int).Rsh(zp, limbPos(9)).Uint64()
					}
				}
			}
			e.invert(&out, &z, &s)
			checkBounds10(t, "invert", &out, e.lanes, forms["tight"])
			for l := range e.lanes {
				want := new(big.Int).Exp(mod(value10(&z, l)), pm2, p)
				if got := mod(value10(&out, l)); got.Cmp(want) != 0 {
					t.Fatalf("lane %d: invert(%x) = %x, want %x", l, value10(&z, l), got, want)
				}
			}
		}
	})
}

// TestPack10 checks the canonical encoding against math/big: at the
// values where the final subtraction of p matters, at every limb's largest
// tight value, and at the largest input pack10 takes, every limb 2^27 - 1.
func TestPack10(t *testing.T) {
	forms := avx2Forms(t)
	one := big.NewInt(1)
	var values []*big.Int
	for _, base := range []*big.Int{big.NewInt(0), p, new(big.Int).Lsh(p, 1), new(big.Int).Lsh(one, 255)} {
		for _, d := range []int64{-40, -20, -19, -18, -1, 0, 1, 18, 19, 20, 38, 40} {
			if v := new(big.Int).Add(base, big.NewInt(d)); v.Sign() >= 0 {
				values = append(values, v)
			}
		}
	}
	r := mrand.New(mrand.NewPCG(5, 6))
	var cases []fe10
	for _, bound := range [][10]uint64{forms["tight"], {1<<27 - 1, 1<<27 - 1, 1<<27 - 1, 1<<27 - 1, 1<<27 - 1, 1<<27 - 1, 1<<27 - 1, 1<<27 - 1, 1<<27 - 1, 1<<27 - 1}} {
		for range 200 {
			var v fe10
			sample10(&v, bound, r, true)
			cases = append(cases, v)
		}
	}
	// Every limb at its width's maximum, but for limb 9, 2^25 - 1 + 2^25
	// (2^256 - 1 - 2^255 + ... : a carry cascade from limb 0 to 9), and
	// the same with every limb at 2^27 - 1.
	var cascade fe10
	for j := range 10 {
		cascade[j][0] = 1<<limbWidth(j) - 1
		cascade[j][1] = 1<<limbWidth(j) - 1 + 1<<limbWidth(j)
	}
	cascade[0][0] += 19
	cases = append(cases, cascade)
	for _, v := range values {
		var x fe10
		for j := range 10 {
			x[j][0] = new(big.Int).Rsh(v, limbPos(j)).Uint64() & (1<<limbWidth(j) - 1)
		}
		x[9][0] = new(big.Int).Rsh(v, limbPos(9)).Uint64() // the rest
		cases = append(cases, x)
	}
	for _, x := range cases {
		for l := range Lanes {
			var got [32]byte
			pack10(&got, &x, l)
			if want := encode(mod(value10(&x, l))); got != want {
				t.Fatalf("pack10(%x) = %x, want %x", value10(&x, l), got, want)
			}
		}
	}
}

func TestUnpack10(t *testing.T) {
	forms := avx2Forms(t)
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(1))
	r := mrand.New(mrand.NewPCG(7, 8))
	for i := range 1000 {
		var b [32]byte
		for k := range b {
			b[k] = byte(r.Uint32())
		}
		if i == 0 {
			for k := range b {
				b[k] = 0xff
			}
		}
		var v fe10
		unpack10(&v, i%Lanes, &b)
		for j := range 10 {
			if v[j][i%Lanes] > forms["unpacked"][j] {
				t.Fatalf("unpack10(%x): limb %d = %#x", b, j, v[j][i%Lanes])
			}
		}
		le := b
		for k := range 16 {
			le[k], le[31-k] = le[31-k], le[k]
		}
		want := new(big.Int).And(new(big.Int).SetBytes(le[:]), mask)
		if got := value10(&v, i%Lanes); got.Cmp(want) != 0 {
			t.Fatalf("unpack10(%x) = %x, want %x", b, got, want)
		}
	}
}

// TestGeneratedAVX2 checks that avx2_amd64.s is what gen_avx2.go writes,
// and that the scratch sizes cover what it reports.
func TestGeneratedAVX2(t *testing.T) {
	have := codegen.CheckGeneratedBy(t, "gen_avx2.go", "avx2_amd64.s")
	for _, c := range []struct {
		name  string
		words int
	}{{"AVX2", scratchWordsAVX2}, {"AVX512", scratchWordsAVX512}} {
		m := regexp.MustCompile(`Scratch bytes used by the ` + c.name + ` functions: (\d+)`).FindSubmatch(have)
		if m == nil {
			t.Fatalf("no %s scratch size in avx2_amd64.s", c.name)
		}
		if n, _ := strconv.Atoi(string(m[1])); c.words*8 < n+64 {
			t.Errorf("scratchWords%s = %d words, the assembly uses %d bytes plus 64 for alignment", c.name, c.words, n)
		}
	}
}

// TestRegistersWipedVec checks that every function of avx2_amd64.s leaves
// none of the vector registers it uses (Z0..Z15, and K1, which combAVX512
// writes) non-zero: they held secrets. It reads the
// registers right after each call (internal/vecregs, which needs
// AVX-512BW).
func TestRegistersWipedVec(t *testing.T) {
	if !vecregs.Available {
		t.Skip("no AVX-512BW to read the registers with")
	}
	var st vecState
	scalars, points := randomBatch()
	st.prepareLadder(&scalars, &points, Lanes)
	st.prepareComb(&scalars, Lanes)
	tab := &combTableIFMA()[0]
	s2 := (*[scratchWordsAVX2]uint64)(st.scratch[:])
	s5 := (*[scratchWordsAVX512]uint64)(&st.scratch)
	var regs vecregs.Regs
	for _, c := range []struct {
		name string
		ok   bool
		run  func()
	}{
		{"ladderAVX2", hasAVX2, func() { ladderAVX2(at(&st.x, 0), at(&st.z, 0), &st.k[0][0], at(&st.u, 0), s2); vecregs.Read(&regs) }},
		{"combAVX2", hasAVX2, func() { combAVX2(at(&st.cx, 0), at(&st.cz, 0), &st.d[0][0][0], tab, s2); vecregs.Read(&regs) }},
		{"invertAVX2", hasAVX2, func() { invertAVX2(at(&st.r, 0), at(&st.z, 0), s2); vecregs.Read(&regs) }},
		{"feMulAVX2", hasAVX2, func() { feMulAVX2(at(&st.r, 0), at(&st.x, 0), at(&st.z, 0), s2); vecregs.Read(&regs) }},
		{"feSquareAVX2", hasAVX2, func() { feSquareAVX2(at(&st.r, 0), at(&st.z, 0), s2); vecregs.Read(&regs) }},
		{"feCarryAVX2", hasAVX2, func() { feCarryAVX2(at(&st.r, 0), at(&st.z, 0)); vecregs.Read(&regs) }},
		{"ladderAVX512", hasAVX512F, func() {
			ladderAVX512(at(&st.x, 0), at(&st.z, 0), &st.k[0][0], at(&st.u, 0), s5)
			vecregs.Read(&regs)
		}},
		{"combAVX512", hasAVX512F, func() { combAVX512(at(&st.cx, 0), at(&st.cz, 0), &st.d[0][0][0], tab, s5); vecregs.Read(&regs) }},
		{"invertAVX512", hasAVX512F, func() { invertAVX512(at(&st.r, 0), at(&st.z, 0), s5); vecregs.Read(&regs) }},
		{"feMulAVX512", hasAVX512F, func() { feMulAVX512(at(&st.r, 0), at(&st.x, 0), at(&st.z, 0), s5); vecregs.Read(&regs) }},
		{"feSquareAVX512", hasAVX512F, func() { feSquareAVX512(at(&st.r, 0), at(&st.z, 0), s5); vecregs.Read(&regs) }},
		{"feCarryAVX512", hasAVX512F, func() { feCarryAVX512(at(&st.r, 0), at(&st.z, 0)); vecregs.Read(&regs) }},
	} {
		if !c.ok {
			continue
		}
		regs = vecregs.Regs{}
		c.run()
		var masks []int // K1 where the function writes it; the Go runtime uses the others
		if c.name == "combAVX512" {
			masks = []int{1}
		}
		// Z16..Z31 are not used (the code has sixteen registers, as AVX2);
		// other code (the IFMA engine's constants) may have left them set.
		regs.Z = [32][64]byte(append(regs.Z[:16:16], make([][64]byte, 16)...))
		if nz := regs.NonZero(masks...); len(nz) > 0 {
			t.Errorf("%s leaves %v non-zero", c.name, nz)
		}
	}
}
