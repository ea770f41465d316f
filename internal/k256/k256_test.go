//go:build !purego

package k256

import (
	"bytes"
	"errors"
	"math/big"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// refPoint is an affine point for the math/big reference; inf marks the
// identity.
type refPoint struct {
	x, y *big.Int
	inf  bool
}

// refAdd is the textbook chord-and-tangent sum on y^2 = x^3 + 7 over
// GF(p), written from the group law, independent of the paper's
// projective formulas.
func refAdd(a, b refPoint) refPoint {
	if a.inf {
		return b
	}
	if b.inf {
		return a
	}
	m := func(v *big.Int) *big.Int { return v.Mod(v, bigP) }
	var l *big.Int
	if a.x.Cmp(b.x) == 0 {
		if m(new(big.Int).Add(a.y, b.y)).Sign() == 0 {
			return refPoint{inf: true}
		}
		// l = 3x^2 / 2y
		num := m(new(big.Int).Mul(big.NewInt(3), new(big.Int).Mul(a.x, a.x)))
		den := new(big.Int).ModInverse(m(new(big.Int).Lsh(a.y, 1)), bigP)
		l = m(num.Mul(num, den))
	} else {
		num := m(new(big.Int).Sub(b.y, a.y))
		den := new(big.Int).ModInverse(m(new(big.Int).Sub(b.x, a.x)), bigP)
		l = m(num.Mul(num, den))
	}
	x := m(new(big.Int).Sub(new(big.Int).Sub(new(big.Int).Mul(l, l), a.x), b.x))
	y := m(new(big.Int).Sub(new(big.Int).Mul(l, new(big.Int).Sub(a.x, x)), a.y))
	return refPoint{x: x, y: y}
}

func randomScalar(r *mrand.Rand) *big.Int {
	var b [32]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b[:]), bigN)
}

// decredMult is k*P by decred's variable-time multiplication (the test's
// independent reference; the engine never calls it).
func decredMult(k *big.Int, x, y *big.Int) refPoint {
	var kb [32]byte
	new(big.Int).Mod(k, bigN).FillBytes(kb[:])
	var s secp256k1.ModNScalar
	s.SetBytes(&kb)
	var px, py secp256k1.FieldVal
	var xb, yb [32]byte
	x.FillBytes(xb[:])
	y.FillBytes(yb[:])
	px.SetBytes(&xb)
	py.SetBytes(&yb)
	p := secp256k1.MakeJacobianPoint(&px, &py, new(secp256k1.FieldVal).SetInt(1))
	var r secp256k1.JacobianPoint
	secp256k1.ScalarMultNonConst(&s, &p, &r)
	if (r.X.IsZero() && r.Y.IsZero()) || r.Z.IsZero() {
		return refPoint{inf: true}
	}
	r.ToAffine()
	rx, ry := r.X.Bytes(), r.Y.Bytes()
	return refPoint{x: new(big.Int).SetBytes(rx[:]), y: new(big.Int).SetBytes(ry[:])}
}

var bigG = refPoint{x: mustHex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"),
	y: mustHex("483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")}

func randomRefPoint(r *mrand.Rand) refPoint {
	return decredMult(randomScalar(r), bigG.x, bigG.y)
}

// projective returns p with a random Z (the identity as (0:Y:0)).
func projective(r *mrand.Rand, p refPoint) point {
	if p.inf {
		y := randomElement(r)
		if y.Sign() == 0 {
			y.SetInt64(1)
		}
		return point{y: feOf(y)}
	}
	z := randomElement(r)
	if z.Sign() == 0 {
		z.SetInt64(1)
	}
	m := func(v *big.Int) *big.Int { return v.Mod(v, bigP) }
	return point{feOf(m(new(big.Int).Mul(p.x, z))), feOf(m(new(big.Int).Mul(p.y, z))), feOf(z)}
}

func toRef(p *point) refPoint {
	z := bigOf(&p.z)
	if z.Sign() == 0 {
		return refPoint{inf: true}
	}
	zi := new(big.Int).ModInverse(z, bigP)
	m := func(v *big.Int) *big.Int { return v.Mod(v, bigP) }
	return refPoint{x: m(new(big.Int).Mul(bigOf(&p.x), zi)), y: m(new(big.Int).Mul(bigOf(&p.y), zi))}
}

func sameRef(a, b refPoint) bool {
	if a.inf || b.inf {
		return a.inf == b.inf
	}
	return a.x.Cmp(b.x) == 0 && a.y.Cmp(b.y) == 0
}

func neg(p refPoint) refPoint {
	if p.inf {
		return p
	}
	return refPoint{x: p.x, y: new(big.Int).Mod(new(big.Int).Neg(p.y), bigP)}
}

// TestPointFormulas compares pointAdd and pointDouble with the group law
// on random points in random projective coordinates, and on the cases
// incomplete formulas get wrong: the identity on either side, p + p and
// p + (-p).
func TestPointFormulas(t *testing.T) {
	r := mrand.New(mrand.NewPCG(5, 6))
	inf := refPoint{inf: true}
	for range 300 {
		a, b := randomRefPoint(r), randomRefPoint(r)
		for _, c := range [][2]refPoint{{a, b}, {a, a}, {a, neg(a)}, {a, inf}, {inf, a}, {inf, inf}} {
			pa, pb := projective(r, c[0]), projective(r, c[1])
			var s point
			pointAdd(&s, &pa, &pb)
			if got, want := toRef(&s), refAdd(c[0], c[1]); !sameRef(got, want) {
				t.Fatalf("pointAdd(%v, %v) = %v, want %v", c[0], c[1], got, want)
			}
			pointDouble(&s, &pa)
			if got, want := toRef(&s), refAdd(c[0], c[0]); !sameRef(got, want) {
				t.Fatalf("pointDouble(%v) = %v, want %v", c[0], got, want)
			}
			pointAdd(&pa, &pa, &pb) // aliasing
			if got, want := toRef(&pa), refAdd(c[0], c[1]); !sameRef(got, want) {
				t.Fatalf("aliased pointAdd = %v, want %v", got, want)
			}
		}
	}
}

// edgeScalars are scalars at the edges of reduction and of the windows:
// 0, 1, 2, small values, n-1, n, n+1 (0 and 1 after reduction), 2^256-1,
// every digit 0 or 15, one digit set.
func edgeScalars() []*big.Int {
	one := big.NewInt(1)
	xs := []*big.Int{big.NewInt(0), one, big.NewInt(2), big.NewInt(15), big.NewInt(16), big.NewInt(17),
		new(big.Int).Sub(bigN, one), new(big.Int).Set(bigN), new(big.Int).Add(bigN, one),
		new(big.Int).Sub(new(big.Int).Lsh(one, 256), one), new(big.Int).Lsh(one, 255),
		new(big.Int).Sub(bigN, big.NewInt(2))}
	for i := uint(0); i < 256; i += 28 {
		xs = append(xs, new(big.Int).Lsh(big.NewInt(0xf), i), new(big.Int).Lsh(big.NewInt(0x8), i))
	}
	return xs
}

func scalarBytes(k *big.Int) (b [32]byte) {
	new(big.Int).Mod(k, new(big.Int).Lsh(big.NewInt(1), 256)).FillBytes(b[:])
	return b
}

// checkECDH compares ECDH(k, P) with decred's multiplication.
func checkECDH(t testing.TB, k *big.Int, p refPoint) {
	t.Helper()
	kb := scalarBytes(k)
	var xb, yb [32]byte
	p.x.FillBytes(xb[:])
	p.y.FillBytes(yb[:])
	got, ok := ECDH(&kb, &xb, &yb)
	want := decredMult(k, p.x, p.y)
	if ok == want.inf {
		t.Fatalf("ECDH(%#x, P) ok = %v, want %v", k, ok, !want.inf)
	}
	if ok && new(big.Int).SetBytes(got[:]).Cmp(want.x) != 0 {
		t.Fatalf("ECDH(%#x, %#x) = %x, want %#x", k, p.x, got, want.x)
	}
}

func checkPublicKey(t testing.TB, k *big.Int) {
	t.Helper()
	kb := scalarBytes(k)
	got, ok := PublicKey(&kb)
	want := decredMult(k, bigG.x, bigG.y)
	if ok == want.inf {
		t.Fatalf("PublicKey(%#x) ok = %v, want %v", k, ok, !want.inf)
	}
	if !ok {
		return
	}
	var w [65]byte
	w[0] = 4
	want.x.FillBytes(w[1:33])
	want.y.FillBytes(w[33:])
	if got != w {
		t.Fatalf("PublicKey(%#x) = %x, want %x", k, got, w)
	}
}

func TestECDH(t *testing.T) {
	r := mrand.New(mrand.NewPCG(7, 8))
	n := 2000
	if testing.Short() {
		n = 200
	}
	for _, k := range edgeScalars() {
		checkECDH(t, k, randomRefPoint(r))
		checkECDH(t, k, bigG)
	}
	for range n {
		checkECDH(t, randomScalar(r), randomRefPoint(r))
	}
}

func TestPublicKey(t *testing.T) {
	r := mrand.New(mrand.NewPCG(9, 10))
	for _, k := range edgeScalars() {
		checkPublicKey(t, k)
	}
	for range 500 {
		checkPublicKey(t, randomScalar(r))
	}
	// A key from decred's own key generation, through its serialization.
	priv, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	kb := [32]byte(priv.Serialize())
	got, ok := PublicKey(&kb)
	if !ok || !bytes.Equal(got[:], priv.PubKey().SerializeUncompressed()) {
		t.Fatalf("PublicKey = %x, decred %x", got, priv.PubKey().SerializeUncompressed())
	}
}

func TestGenerator(t *testing.T) {
	if bigOf(&gx).Cmp(bigG.x) != 0 || bigOf(&gy).Cmp(bigG.y) != 0 {
		t.Fatal("the generator's limbs are not G")
	}
	one := secp256k1.PrivKeyFromBytes([]byte{1}).PubKey().SerializeUncompressed()
	if new(big.Int).SetBytes(one[1:33]).Cmp(bigG.x) != 0 || new(big.Int).SetBytes(one[33:]).Cmp(bigG.y) != 0 {
		t.Fatal("the test's G is not decred's")
	}
}

// TestBaseMult compares both ways of computing k*G, the variable-base
// multiplication of G and the table, with decred on the edge scalars and
// random ones.
func TestBaseMult(t *testing.T) {
	r := mrand.New(mrand.NewPCG(13, 14))
	ks := edgeScalars()
	for range 300 {
		ks = append(ks, randomScalar(r))
	}
	for _, k := range ks {
		kb := scalarBytes(k)
		s, zero := reduceScalar(&kb)
		want := decredMult(k, bigG.x, bigG.y)
		if zero != want.inf {
			t.Fatalf("reduceScalar(%#x) zero = %v", k, zero)
		}
		if zero {
			continue
		}
		var a, b point
		g := point{gx, gy, fe{1}}
		scalarMult(&a, &s, &g)
		baseMult(&b, &s)
		for _, p := range []*point{&a, &b} {
			if got := toRef(p); !sameRef(got, want) {
				t.Fatalf("%#x*G = %v, want %v", k, got, want)
			}
		}
	}
}

// TestPublicKeyTableAfterThreshold checks, in a fresh process, that the
// first VariableBaseKeys public keys leave the table unbuilt and the next
// builds it, each key right.
func TestPublicKeyTableAfterThreshold(t *testing.T) {
	if os.Getenv("K256_THRESHOLD_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPublicKeyTableAfterThreshold$", "-test.count=1")
		cmd.Env = append(os.Environ(), "K256_THRESHOLD_CHILD=1")
		if out, err := cmd.CombinedOutput(); errors.Is(err, syscall.ENOEXEC) {
			t.Skip("the test binary cannot run itself here (an emulated architecture without binfmt_misc)")
		} else if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	r := mrand.New(mrand.NewPCG(15, 16))
	for i := range VariableBaseKeys + 1 {
		if baseTableBuilt.Load() {
			t.Fatalf("the table was built before key %d", i+1)
		}
		checkPublicKey(t, randomScalar(r))
	}
	if !baseTableBuilt.Load() {
		t.Fatalf("key %d did not build the table", VariableBaseKeys+1)
	}
}

var (
	bigLambda = mustHex("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72")
	bigBeta   = mustHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
)

// TestGLVEndomorphism checks the endomorphism's constants against the
// curve, with decred's multiplication: lambda*P = (beta*x, y) for G and
// random points.
func TestGLVEndomorphism(t *testing.T) {
	if bigOf(&glvBeta).Cmp(bigBeta) != 0 {
		t.Fatal("glvBeta is not beta")
	}
	r := mrand.New(mrand.NewPCG(17, 18))
	for _, p := range []refPoint{bigG, randomRefPoint(r), randomRefPoint(r)} {
		got := decredMult(bigLambda, p.x, p.y)
		want := refPoint{x: new(big.Int).Mod(new(big.Int).Mul(bigBeta, p.x), bigP), y: p.y}
		if !sameRef(got, want) {
			t.Fatalf("lambda*P = %v, want (beta*x, y) = %v", got, want)
		}
	}
}

// TestGLVSplit checks glvSplit with math/big: k = k1 + k2*lambda (mod n)
// with the signs it reports, and both magnitudes below 2^128, for edge
// scalars (including multiples and neighbours of lambda and of the
// lattice's rounding boundaries, n-1) and random ones.
func TestGLVSplit(t *testing.T) {
	r := mrand.New(mrand.NewPCG(19, 20))
	ks := edgeScalars()
	for _, m := range []int64{1, 2, 3, -1, -2} {
		l := new(big.Int).Mul(bigLambda, big.NewInt(m))
		ks = append(ks, l, new(big.Int).Add(l, big.NewInt(1)), new(big.Int).Sub(l, big.NewInt(1)))
	}
	half := new(big.Int).Rsh(bigN, 1)
	ks = append(ks, half, new(big.Int).Add(half, big.NewInt(1)))
	for range 20000 {
		ks = append(ks, randomScalar(r))
	}
	lim := new(big.Int).Lsh(big.NewInt(1), 128)
	for _, k := range ks {
		k = new(big.Int).Mod(k, bigN)
		kb := scalarBytes(k)
		s, _ := reduceScalar(&kb)
		k1, k2, neg1, neg2 := glvSplit(&s)
		v1 := new(big.Int).SetBytes(append(u64be(k1[1]), u64be(k1[0])...))
		v2 := new(big.Int).SetBytes(append(u64be(k2[1]), u64be(k2[0])...))
		if v1.Cmp(lim) >= 0 || v2.Cmp(lim) >= 0 {
			t.Fatalf("split(%#x): magnitudes %#x, %#x", k, v1, v2)
		}
		if neg1 != 0 && neg1 != ^uint64(0) || neg2 != 0 && neg2 != ^uint64(0) {
			t.Fatalf("split(%#x): sign masks %x, %x", k, neg1, neg2)
		}
		if neg1 != 0 {
			v1.Neg(v1)
		}
		if neg2 != 0 {
			v2.Neg(v2)
		}
		sum := new(big.Int).Add(v1, new(big.Int).Mul(v2, bigLambda))
		if sum.Sub(sum, k).Mod(sum, bigN).Sign() != 0 {
			t.Fatalf("split(%#x) = %#x + %#x*lambda, not k mod n", k, v1, v2)
		}
	}
}

func u64be(x uint64) []byte {
	var b [8]byte
	for i := range b {
		b[i] = byte(x >> (56 - 8*i))
	}
	return b[:]
}
