package x25519x8

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	circlx "github.com/cloudflare/circl/dh/x25519"
	"github.com/fanseal/fanseal/internal/passes"
	"golang.org/x/crypto/curve25519"
)

// ecdhX25519 is the reference: X25519(k, u) by crypto/ecdh, which refuses
// the all-zero output of a low-order point with an error; the X25519
// function of RFC 7748 returns that all-zero output.
func ecdhX25519(t testing.TB, k, u *[32]byte) (out [32]byte, lowOrder bool) {
	t.Helper()
	priv, err := ecdh.X25519().NewPrivateKey(k[:])
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ecdh.X25519().NewPublicKey(u[:])
	if err != nil {
		t.Fatal(err)
	}
	s, err := priv.ECDH(pub)
	if err != nil {
		return out, true
	}
	return [32]byte(s), false
}

// reference is X25519(k, u) and X25519(k, 9) of one lane by crypto/ecdh,
// checked against golang.org/x/crypto/curve25519 and circl's x25519
// (circl's is an implementation of its own; x/crypto's calls
// crypto/ecdh, as the tests of this package require of it anyway).
func reference(t testing.TB, k, u *[32]byte) (out, pub [32]byte, low bool) {
	t.Helper()
	out, low = ecdhX25519(t, k, u)
	pub, _ = ecdhX25519(t, k, &basepoint)
	var xc [32]byte
	curve25519.ScalarMult(&xc, k, u)
	var ck, cu, cs circlx.Key
	ck, cu = *k, *u
	ok := circlx.Shared(&cs, &ck, &cu)
	if xc != out || ok == low || (!low && [32]byte(cs) != out) {
		t.Fatalf("X25519(%x, %x): crypto/ecdh %x (low order: %v), x/crypto %x, circl %x (%v)", k, u, out, low, xc, [32]byte(cs), ok)
	}
	var cp circlx.Key
	circlx.KeyGen(&cp, &ck)
	if [32]byte(cp) != pub {
		t.Fatalf("public key of %x: crypto/ecdh %x, circl %x", k, pub, [32]byte(cp))
	}
	return out, pub, low
}

// untouched is what the checks put in output lanes that must not be
// written.
var untouched = [32]byte{0: 0xa5, 31: 0x5a}

// checkBatch runs ScalarMult, ScalarBaseMult and ScalarBaseMultAndMult on
// the first n lanes on every engine this CPU has, and compares every lane
// with the references (computed once); lanes n and above of the outputs
// must be left alone. The generic engine, crypto/ecdh itself, runs on
// every fourth batch.
func checkBatch(t testing.TB, scalars, points *[Lanes][32]byte, n int) {
	t.Helper()
	var want, wantPub [Lanes][32]byte
	for i := range n {
		want[i], wantPub[i], _ = reference(t, &scalars[i], &points[i])
	}
	b := batches.Add(1)
	for _, e := range availableEngines() {
		if e == engineGeneric && b%4 != 0 {
			continue
		}
		checkEngine(t, e, scalars, points, n, &want, &wantPub)
	}
}

var batches atomic.Int64

// checkEngine is checkBatch on the engine e, against want and wantPub.
func checkEngine(t testing.TB, e engineID, scalars, points *[Lanes][32]byte, n int, want, wantPub *[Lanes][32]byte) {
	t.Helper()
	var dst, pubs, base, both2 [Lanes][32]byte
	for i := range Lanes {
		dst[i], pubs[i], base[i], both2[i] = untouched, untouched, untouched, untouched
	}
	scalarMult(e, &dst, scalars, points, n)
	scalarBaseMult(e, &base, scalars, n)
	both(e, &pubs, &both2, scalars, points, n)
	for i := range Lanes {
		if i >= n {
			if dst[i] != untouched || base[i] != untouched || pubs[i] != untouched || both2[i] != untouched {
				t.Fatalf("engine %v, n=%d: lane %d past n was written", e, n, i)
			}
			continue
		}
		if dst[i] != want[i] {
			t.Fatalf("engine %v, n=%d lane %d: X25519(%x, %x) = %x, want %x",
				e, n, i, scalars[i], points[i], dst[i], want[i])
		}
		if base[i] != wantPub[i] {
			t.Fatalf("engine %v, n=%d lane %d: ScalarBaseMult(%x) = %x, want %x",
				e, n, i, scalars[i], base[i], wantPub[i])
		}
		pub := wantPub[i]
		if want[i] == [32]byte{} {
			pub = [32]byte{}
		}
		if both2[i] != want[i] || pubs[i] != pub {
			t.Fatalf("engine %v: ScalarBaseMultAndMult, n=%d lane %d (scalar %x, point %x): %x and %x, want %x and %x",
				e, n, i, scalars[i], points[i], pubs[i], both2[i], pub, want[i])
		}
	}
}

func randomBatch() (scalars, points [Lanes][32]byte) {
	for i := range Lanes {
		rand.Read(scalars[i][:])
		rand.Read(points[i][:])
	}
	return
}

func unhex(t testing.TB, s string) [32]byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad hex %q", s)
	}
	return [32]byte(b)
}

// RFC 7748, section 5.2: two single vectors and the iterated function.
func TestRFC7748Vectors(t *testing.T) {
	vectors := []struct{ k, u, out string }{
		{"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
			"e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
			"c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
		{"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
			"e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
			"95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
	}
	for _, impl := range impls() {
		t.Run(impl.name, func(t *testing.T) {
			// Each vector in every lane, beside the other vector.
			for lane := range Lanes {
				var k, u, out [Lanes][32]byte
				for i := range Lanes {
					v := vectors[(i+lane)%2]
					k[i], u[i] = unhex(t, v.k), unhex(t, v.u)
				}
				impl.mult(&out, &k, &u, Lanes)
				for i := range Lanes {
					if want := unhex(t, vectors[(i+lane)%2].out); out[i] != want {
						t.Errorf("lane %d: got %x, want %x", i, out[i], want)
					}
				}
			}
		})
	}
}

// An impl is one engine's functions, for the tests that run each.
type impl struct {
	name   string
	engine engineID
	mult   func(dst, scalars, points *[Lanes][32]byte, n int)
	base   func(dst, scalars *[Lanes][32]byte, n int)
}

// impls are the engines this CPU has, the one the package uses first, and
// generic (crypto/ecdh, which the other builds use) last.
func impls() []impl {
	var out []impl
	for _, e := range availableEngines() {
		out = append(out, impl{
			name:   "engine=" + e.String(),
			engine: e,
			mult:   func(dst, scalars, points *[Lanes][32]byte, n int) { scalarMult(e, dst, scalars, points, n) },
			base:   func(dst, scalars *[Lanes][32]byte, n int) { scalarBaseMult(e, dst, scalars, n) },
		})
	}
	return out
}

// TestEngine: the engine in use is the first available; Engine names it
// and Accelerated says whether it is a vector one.
func TestEngine(t *testing.T) {
	es := availableEngines()
	if engine != es[0] || Engine() != es[0].String() || Accelerated() != (es[0] != engineGeneric) {
		t.Errorf("engine %v, Engine() %q, Accelerated() %v; available %v", engine, Engine(), Accelerated(), es)
	}
	if es[len(es)-1] != engineGeneric {
		t.Errorf("available engines %v do not end with generic", es)
	}
	t.Logf("engines here: %v", es)
}

// iterate runs the iterated test of RFC 7748 section 5.2 in one lane:
// k = u = 9; then (k, u) = (X25519(k, u), k), iterations times.
func iterate(e engineID, iterations int) [32]byte {
	var k, u, out [Lanes][32]byte
	k[0][0], u[0][0] = 9, 9
	for range iterations {
		scalarMult(e, &out, &k, &u, 1)
		u[0], k[0] = k[0], out[0]
	}
	return k[0]
}

func TestRFC7748Iterated(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			if got, want := iterate(im.engine, 1), unhex(t, "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"); got != want {
				t.Errorf("1 iteration: got %x, want %x", got, want)
			}
			if got, want := iterate(im.engine, 1000), unhex(t, "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"); got != want {
				t.Errorf("1000 iterations: got %x, want %x", got, want)
			}
		})
	}
}

// The million iterations are one dependent chain (about a minute on one
// core for IFMA, more for the others; every engine): run them with
// X25519X8_MILLION=1.
func TestRFC7748IteratedMillion(t *testing.T) {
	if os.Getenv("X25519X8_MILLION") == "" {
		t.Skip("set X25519X8_MILLION=1 to run the 1,000,000 iterations of RFC 7748 section 5.2")
	}
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			if got, want := iterate(im.engine, 1_000_000), unhex(t, "7c3911e0ab2586fd864497297e575e6f3bc601c0883c30df5f4dd2d24f665424"); got != want {
				t.Errorf("1,000,000 iterations: got %x, want %x", got, want)
			}
		})
	}
}

// RFC 7748, section 6.1: both key pairs and the shared secret.
func TestRFC7748DiffieHellman(t *testing.T) {
	alice := unhex(t, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
	alicePub := unhex(t, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
	bob := unhex(t, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
	bobPub := unhex(t, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
	shared := unhex(t, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
	for _, impl := range impls() {
		t.Run(impl.name, func(t *testing.T) {
			var pubs [Lanes][32]byte
			impl.base(&pubs, &[Lanes][32]byte{alice, bob}, 2)
			if pubs[0] != alicePub || pubs[1] != bobPub {
				t.Errorf("public keys %x, %x; want %x, %x", pubs[0], pubs[1], alicePub, bobPub)
			}
			var out [Lanes][32]byte
			impl.mult(&out, &[Lanes][32]byte{alice, bob}, &[Lanes][32]byte{bobPub, alicePub}, 2)
			if out[0] != shared || out[1] != shared {
				t.Errorf("shared secrets %x, %x; want %x", out[0], out[1], shared)
			}
		})
	}
}

// differentialCount is how many random lanes the differential test
// compares with the references (each on every engine): X25519X8_CASES if
// set (10^6 took 7 minutes on two cores shared with other work, AMD
// Zen 5, each lane on three vector engines), else 100,000, or 2,000 with
// -short.
func differentialCount(t testing.TB) int {
	if s := os.Getenv("X25519X8_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			t.Fatalf("X25519X8_CASES=%q", s)
		}
		return n
	}
	if testing.Short() {
		return 2_000
	}
	return 100_000
}

// TestDifferentialRandom compares random lanes, in batches of every count
// n = 0..8, with the references, on every engine; the batches run on as
// many goroutines as GOMAXPROCS.
func TestDifferentialRandom(t *testing.T) {
	total := differentialCount(t)
	workers := max(1, runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n = (n + 1) % (Lanes + 1) {
				mu.Lock()
				if done >= total || t.Failed() {
					mu.Unlock()
					return
				}
				done += max(n, 1)
				mu.Unlock()
				scalars, points := randomBatch()
				checkBatch(goTB{t}, &scalars, &points, n)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d lanes compared", done)
}

// goTB is a testing.TB for a goroutine other than the test's: Fatal and
// FailNow report the failure and end the goroutine (runtime.Goexit), as
// they may not end the test from there.
type goTB struct{ testing.TB }

func (g goTB) Fatal(args ...any) {
	g.Helper()
	g.Error(args...)
	runtime.Goexit()
}

func (g goTB) Fatalf(format string, args ...any) {
	g.Helper()
	g.Errorf(format, args...)
	runtime.Goexit()
}

func (g goTB) FailNow() {
	g.Fail()
	runtime.Goexit()
}

// TestDifferentialOneScalar is the shared-ephemeral shape: one scalar,
// eight points.
func TestDifferentialOneScalar(t *testing.T) {
	for range 50 {
		scalars, points := randomBatch()
		for i := range scalars {
			scalars[i] = scalars[0]
		}
		checkBatch(t, &scalars, &points, Lanes)
	}
}

func TestScalarBaseMult(t *testing.T) {
	for _, im := range impls() {
		for n := 0; n <= Lanes; n++ {
			scalars, _ := randomBatch()
			var dst [Lanes][32]byte
			im.base(&dst, &scalars, n)
			for i := range Lanes {
				var want [32]byte
				if i < n {
					want, _ = ecdhX25519(t, &scalars[i], &basepoint)
				}
				if dst[i] != want {
					t.Fatalf("%s, n=%d lane %d: got %x, want %x", im.name, n, i, dst[i], want)
				}
			}
		}
	}
}

var p = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))

// encode returns the 32-byte little-endian encoding of x < 2^256.
func encode(x *big.Int) [32]byte {
	var b [32]byte
	x.FillBytes(b[:])
	for i := range 16 {
		b[i], b[31-i] = b[31-i], b[i]
	}
	return b
}

// lowOrderPoints returns every u-coordinate of a point of order dividing
// 8 on the curve or its twist (0, 1, p-1 and the two points of order 8),
// with every non-canonical encoding of each: plus p where that stays
// below 2^255, and with the ignored top bit set.
func lowOrderPoints(t testing.TB) [][32]byte {
	canonical := []*big.Int{
		big.NewInt(0), big.NewInt(1), new(big.Int).Sub(p, big.NewInt(1)),
	}
	for _, s := range []string{
		"325606250916557431795983626356110631294008115727848805560023387167927233504",
		"39382357235489614581723060781553021112529911719440698176882885853963445705823",
	} {
		u, _ := new(big.Int).SetString(s, 10)
		canonical = append(canonical, u)
	}
	top := new(big.Int).Lsh(big.NewInt(1), 255)
	var out [][32]byte
	for _, u := range canonical {
		forms := []*big.Int{u}
		if v := new(big.Int).Add(u, p); v.Cmp(top) < 0 {
			forms = append(forms, v)
		}
		for _, f := range forms {
			out = append(out, encode(f), encode(new(big.Int).Add(f, top)))
		}
	}
	// The list is checked against crypto/ecdh, not assumed.
	for _, u := range out {
		var k [32]byte
		rand.Read(k[:])
		if _, low := ecdhX25519(t, &k, &u); !low {
			t.Fatalf("%x is not a low-order point for crypto/ecdh", u)
		}
	}
	return out
}

// edgePoints are u-coordinates at the ends of the field and of the
// encoding: 0, 1, p-1, p, p+1, 2^255-1 (non-canonical), 2^256-1 (top bit
// ignored), 9, and the largest value below p with every limb at its
// maximum.
func edgePoints() [][32]byte {
	one := big.NewInt(1)
	top := new(big.Int).Lsh(one, 255)
	var out [][32]byte
	for _, u := range []*big.Int{
		big.NewInt(0), one, big.NewInt(9),
		new(big.Int).Sub(p, one), p, new(big.Int).Add(p, one), new(big.Int).Add(p, big.NewInt(18)),
		new(big.Int).Sub(top, one), new(big.Int).Sub(new(big.Int).Lsh(one, 256), one),
		new(big.Int).Sub(p, big.NewInt(1<<20)), new(big.Int).Lsh(one, 254), new(big.Int).Lsh(one, 208),
	} {
		out = append(out, encode(u))
	}
	return out
}

// edgeScalars: all bits set, only the bits clamping sets or clears (which
// clamp to 2^254), all zero, and the clamped extremes.
func edgeScalars() [][32]byte {
	var ones, clampBits, zero, low, high [32]byte
	for i := range ones {
		ones[i] = 0xff
	}
	clampBits[0], clampBits[31] = 0x07, 0x80
	low[0], low[31] = 0x08, 0x40 // 2^254 + 8
	for i := range high {
		high[i] = 0xff
	}
	high[0], high[31] = 0xf8, 0x7f // the largest clamped scalar
	return [][32]byte{ones, clampBits, zero, low, high}
}

func TestEdgeCases(t *testing.T) {
	points := append(edgePoints(), lowOrderPoints(t)...)
	scalars := edgeScalars()
	for range 3 {
		var k [32]byte
		rand.Read(k[:])
		scalars = append(scalars, k)
	}
	// Every (scalar, point) pair, eight at a time, in every lane.
	type pair struct{ k, u [32]byte }
	var pairs []pair
	for _, k := range scalars {
		for _, u := range points {
			pairs = append(pairs, pair{k, u})
		}
	}
	for shift := range Lanes {
		for start := 0; start < len(pairs); start += Lanes {
			var ks, us [Lanes][32]byte
			for i := range Lanes {
				pr := pairs[(start+i+shift)%len(pairs)]
				ks[i], us[i] = pr.k, pr.u
			}
			checkBatch(t, &ks, &us, Lanes)
		}
	}
}

// TestMixedLowOrder puts low-order points in some lanes and ordinary ones
// in the others, in every position and count.
func TestMixedLowOrder(t *testing.T) {
	low := lowOrderPoints(t)
	for mask := 0; mask < 1<<Lanes; mask += 7 {
		scalars, points := randomBatch()
		for i := range Lanes {
			if mask>>i&1 == 1 {
				points[i] = low[(mask+i)%len(low)]
			}
		}
		checkBatch(t, &scalars, &points, Lanes)
		for _, im := range impls() {
			var out [Lanes][32]byte
			im.mult(&out, &scalars, &points, Lanes)
			for i := range Lanes {
				if zero := out[i] == [32]byte{}; zero != (mask>>i&1 == 1) {
					t.Fatalf("%s, mask %08b lane %d: all-zero output %v", im.name, mask, i, zero)
				}
			}
		}
	}
}

// TestEveryLane puts an edge input in each lane in turn, the other lanes
// random, and each count of lanes in use.
func TestEveryLane(t *testing.T) {
	edges := edgePoints()
	for n := 1; n <= Lanes; n++ {
		for lane := range n {
			for _, u := range edges {
				scalars, points := randomBatch()
				points[lane] = u
				checkBatch(t, &scalars, &points, n)
			}
		}
	}
}

func TestAliasing(t *testing.T) {
	scalars, points := randomBatch()
	var want, pubs [Lanes][32]byte
	for i := range Lanes {
		want[i], _ = ecdhX25519(t, &scalars[i], &points[i])
		pubs[i], _ = ecdhX25519(t, &scalars[i], &basepoint)
	}
	for _, im := range append(impls(), impl{name: "exported", mult: ScalarMult, base: ScalarBaseMult}) {
		for _, n := range []int{3, Lanes} {
			k, u := scalars, points
			im.mult(&u, &k, &u, n)
			if !bytes.Equal(flat(u[:n]), flat(want[:n])) || !bytes.Equal(flat(u[n:]), flat(points[n:])) {
				t.Errorf("%s, n=%d: dst aliasing points: wrong result", im.name, n)
			}
			k, u = scalars, points
			im.mult(&k, &k, &u, n)
			if !bytes.Equal(flat(k[:n]), flat(want[:n])) || !bytes.Equal(flat(k[n:]), flat(scalars[n:])) {
				t.Errorf("%s, n=%d: dst aliasing scalars: wrong result", im.name, n)
			}
			k = scalars
			im.base(&k, &k, n)
			if !bytes.Equal(flat(k[:n]), flat(pubs[:n])) || !bytes.Equal(flat(k[n:]), flat(scalars[n:])) {
				t.Errorf("%s, n=%d: ScalarBaseMult with dst aliasing scalars: wrong result", im.name, n)
			}
		}
	}
}

// flat returns the bytes of the lanes v.
func flat(v [][32]byte) []byte {
	var b []byte
	for _, x := range v {
		b = append(b, x[:]...)
	}
	return b
}

// TestScalarBaseMultAndMultAliasing: the outputs may alias the inputs,
// and not each other.
func TestScalarBaseMultAndMultAliasing(t *testing.T) {
	scalars, points := randomBatch()
	var wantPubs, wantDH [Lanes][32]byte
	for i := range Lanes {
		wantPubs[i], _ = ecdhX25519(t, &scalars[i], &basepoint)
		wantDH[i], _ = ecdhX25519(t, &scalars[i], &points[i])
	}
	for _, e := range availableEngines() {
		k, u := scalars, points
		both(e, &k, &u, &k, &u, Lanes)
		if k != wantPubs || u != wantDH {
			t.Errorf("engine %v: pubs aliasing scalars, dst aliasing points: wrong result", e)
		}
		k, u = scalars, points
		both(e, &u, &k, &k, &u, Lanes)
		if u != wantPubs || k != wantDH {
			t.Errorf("engine %v: pubs aliasing points, dst aliasing scalars: wrong result", e)
		}
	}
	k := scalars
	defer func() {
		if recover() == nil {
			t.Error("pubs aliasing dst did not panic")
		}
	}()
	ScalarBaseMultAndMult(&k, &k, &scalars, &points, Lanes)
}

func TestCountOutOfRange(t *testing.T) {
	var a [Lanes][32]byte
	for _, n := range []int{-1, Lanes + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ScalarMult with n=%d did not panic", n)
				}
			}()
			ScalarMult(&a, &a, &a, n)
		}()
	}
}

// TestInputsUnchanged: the scalars and points are read, not clamped or
// masked in place.
func TestInputsUnchanged(t *testing.T) {
	scalars, points := randomBatch()
	for i := range Lanes {
		scalars[i][0] |= 7
		points[i][31] |= 0x80
	}
	for _, e := range availableEngines() {
		k, u := scalars, points
		var out, pubs [Lanes][32]byte
		scalarMult(e, &out, &k, &u, Lanes)
		scalarBaseMult(e, &out, &k, Lanes)
		both(e, &pubs, &out, &k, &u, Lanes)
		if k != scalars || u != points {
			t.Errorf("engine %v modified its inputs", e)
		}
	}
}

// FuzzScalarMult compares a batch built from the fuzzer's bytes with
// crypto/ecdh, lane by lane.
func FuzzScalarMult(f *testing.F) {
	f.Add(byte(1), bytes.Repeat([]byte{9}, 64))
	f.Add(byte(8), bytes.Repeat([]byte{0xff}, 512))
	f.Add(byte(3), make([]byte, 100))
	f.Fuzz(func(t *testing.T, n byte, data []byte) {
		lanes := int(n)%Lanes + 1
		var scalars, points [Lanes][32]byte
		for i := range lanes {
			// Each lane takes its 64 bytes from data, repeated as needed.
			for j := range 64 {
				var b byte
				if len(data) > 0 {
					b = data[(64*i+j)%len(data)]
				}
				if j < 32 {
					scalars[i][j] = b
				} else {
					points[i][j-32] = b
				}
			}
		}
		checkBatch(t, &scalars, &points, lanes)
	})
}

// TestBatchSize: on every engine, PassLanes (8 on IFMA and AVX-512F, 4
// on AVX2, 1 on generic) and BatchSize cutting by it (passes.Size,
// tested in its package).
func TestBatchSize(t *testing.T) {
	defer func(e engineID) { engine = e }(engine)
	for e, lanes := range map[engineID]int{engineGeneric: 1, engineAVX2: 4, engineAVX512F: 8, engineIFMA: 8} {
		engine = e
		if PassLanes() != lanes {
			t.Errorf("%v: PassLanes() = %d, want %d", e, PassLanes(), lanes)
		}
		for n := -1; n <= 100; n++ {
			if got, want := BatchSize(n), passes.Size(n, lanes); got != want {
				t.Errorf("%v: BatchSize(%d) = %d, want passes.Size's %d", e, n, got, want)
			}
		}
	}
}
