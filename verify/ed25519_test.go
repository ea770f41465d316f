package verify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"filippo.io/edwards25519"
)

// The Ed25519 edge cases of "Taming the many EdDSAs" (Chalkias, Garillot,
// Nikolaenko 2020), built here from their definitions: small-order and
// mixed-order A and R, with and without a small-order residue in the
// cofactorless equation, S at or above L, non-canonical encodings of A and
// R. Each case states the ZIP-215 verdict, which Single and Verify must both
// give, and crypto/ed25519's verdict (cofactorless equation, R compared
// byte for byte, A decoded leniently), which checks independently that the
// case is built as its name says.

var (
	fieldP = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	orderL = func() *big.Int {
		l, _ := new(big.Int).SetString("27742317777372353535851937790883648493", 10)
		return l.Add(l, new(big.Int).Lsh(big.NewInt(1), 252))
	}()
	// curveD is −121665/121666 mod p.
	curveD = func() *big.Int {
		d := new(big.Int).ModInverse(big.NewInt(121666), fieldP)
		d.Mul(d, big.NewInt(-121665))
		return d.Mod(d, fieldP)
	}()
)

// le is x as 32 little-endian bytes.
func le(x *big.Int) []byte {
	b := make([]byte, 32)
	x.FillBytes(b)
	for i := range 16 {
		b[i], b[31-i] = b[31-i], b[i]
	}
	return b
}

// encodeY is the encoding of y (which may be p or more: a non-canonical
// encoding) with the sign bit of x.
func encodeY(y *big.Int, sign bool) []byte {
	b := le(y)
	if sign {
		b[31] |= 0x80
	}
	return b
}

// onCurve reports whether some x has x² = (y²−1)/(dy²+1) mod p (RFC 8032,
// 5.1.3), by Euler's criterion.
func onCurve(y *big.Int) bool {
	y2 := new(big.Int).Mul(y, y)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	v := new(big.Int).Mul(curveD, y2)
	v.Add(v, big.NewInt(1))
	x2 := u.Mul(u, new(big.Int).ModInverse(v.Mod(v, fieldP), fieldP))
	x2.Mod(x2, fieldP)
	if x2.Sign() == 0 {
		return true
	}
	e := new(big.Int).Rsh(new(big.Int).Sub(fieldP, big.NewInt(1)), 1)
	return x2.Exp(x2, e, fieldP).Cmp(big.NewInt(1)) == 0
}

func mustPoint(t testing.TB, b []byte) *edwards25519.Point {
	t.Helper()
	p, err := new(edwards25519.Point).SetBytes(b)
	if err != nil {
		t.Fatalf("%x: %v", b, err)
	}
	return p
}

func randScalar(t testing.TB) *edwards25519.Scalar {
	var b [64]byte
	rand.Read(b[:])
	s, err := edwards25519.NewScalar().SetUniformBytes(b[:])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// challenge is k = SHA-512(R ‖ A ‖ M) mod L.
func challenge(R, A, M []byte) *edwards25519.Scalar {
	h := sha512.New()
	h.Write(R)
	h.Write(A)
	h.Write(M)
	k, _ := edwards25519.NewScalar().SetUniformBytes(h.Sum(nil))
	return k
}

// torsion returns the 8-torsion subgroup as [i]T for a point T of order 8.
// T is a published canonical encoding (libsodium's and ZIP-215's lists);
// its order is checked here.
func torsion(t testing.TB) [8]*edwards25519.Point {
	T := mustPoint(t, hexBytes(t, "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"))
	id := edwards25519.NewIdentityPoint()
	four := new(edwards25519.Point).Add(T, T)
	four.Add(four, four)
	if new(edwards25519.Point).MultByCofactor(T).Equal(id) != 1 || four.Equal(id) == 1 {
		t.Fatal("T is not of order 8")
	}
	var ts [8]*edwards25519.Point
	ts[0] = edwards25519.NewIdentityPoint()
	for i := 1; i < 8; i++ {
		ts[i] = new(edwards25519.Point).Add(ts[i-1], T)
	}
	return ts
}

// smallOrderEncodings returns the 8 canonical encodings of the small-order
// points and the 6 non-canonical ones (x = 0 with the sign bit set, and
// y ≥ p), the 14 of ZIP-215.
func smallOrderEncodings(t testing.TB) (canonical, nonCanonical [][]byte) {
	for _, p := range torsion(t) {
		canonical = append(canonical, p.Bytes())
	}
	one := big.NewInt(1)
	pPlus1 := new(big.Int).Add(fieldP, one)
	pMinus1 := new(big.Int).Sub(fieldP, one)
	nonCanonical = [][]byte{
		encodeY(one, true),     // identity, x = −0
		encodeY(pPlus1, false), // identity, y = p+1
		encodeY(pPlus1, true),  // identity, y = p+1, x = −0
		encodeY(pMinus1, true), // (0, −1), x = −0
		encodeY(fieldP, false), // (√−1, 0) with y = p
		encodeY(fieldP, true),  // (−√−1, 0) with y = p
	}
	return canonical, nonCanonical
}

type edgeCase struct {
	name    string
	item    Item
	zip215  bool  // the ZIP-215 verdict
	stdlib  bool  // crypto/ed25519's verdict
	wantErr error // for a ZIP-215 rejection
}

// findMessage returns a message whose challenge for R and A satisfies ok.
func findMessage(t testing.TB, R, A []byte, ok func(k *edwards25519.Scalar) bool) []byte {
	for i := range 1000 {
		m := fmt.Appendf(nil, "taming the many EdDSAs %d", i)
		if ok(challenge(R, A, m)) {
			return m
		}
	}
	t.Fatal("no message found")
	return nil
}

// residueZero reports whether T_R + [k]T_A is the identity: whether the
// cofactorless equation holds for a signature built as sign does.
func residueZero(tR, tA *edwards25519.Point, k *edwards25519.Scalar) bool {
	r := new(edwards25519.Point).ScalarMult(k, tA)
	r.Add(r, tR)
	return r.Equal(edwards25519.NewIdentityPoint()) == 1
}

// edgeCases builds the vectors. A signature over key A = [a]B + T_A with
// R = [r]B + T_R and S = r + k·a satisfies the cofactored equation (both
// torsion terms vanish under [8]) and satisfies the cofactorless one iff
// T_R + [k]T_A is the identity.
func edgeCases(t testing.TB) []edgeCase {
	ts := torsion(t)
	zero := edwards25519.NewScalar()
	var cases []edgeCase
	// build signs for a, T_A, r, T_R, choosing the message with want.
	build := func(name string, a *edwards25519.Scalar, tA int, r *edwards25519.Scalar, tR int, residue bool) {
		A := new(edwards25519.Point).ScalarBaseMult(a)
		A.Add(A, ts[tA])
		R := new(edwards25519.Point).ScalarBaseMult(r)
		R.Add(R, ts[tR])
		Ab, Rb := A.Bytes(), R.Bytes()
		m := findMessage(t, Rb, Ab, func(k *edwards25519.Scalar) bool { return residueZero(ts[tR], ts[tA], k) != residue })
		S := new(edwards25519.Scalar).MultiplyAdd(challenge(Rb, Ab, m), a, r)
		cases = append(cases, edgeCase{name: name, item: Item{Ed25519, Ab, m, append(Rb, S.Bytes()...)}, zip215: true, stdlib: !residue})
	}
	build("S=0/A=small/R=small/cofactorless", zero, 1, zero, 3, false)
	build("S=0/A=small/R=small/residue", zero, 1, zero, 3, true)
	build("A=small/R=mixed/cofactorless", zero, 1, randScalar(t), 2, false)
	build("A=small/R=mixed/residue", zero, 1, randScalar(t), 2, true)
	build("A=mixed/R=small/cofactorless", randScalar(t), 1, zero, 6, false)
	build("A=mixed/R=small/residue", randScalar(t), 5, zero, 6, true)
	build("A=mixed/R=mixed/cofactorless", randScalar(t), 3, randScalar(t), 7, false)
	build("A=mixed/R=mixed/residue", randScalar(t), 3, randScalar(t), 7, true)

	// Pre-reduced: a verifier computing [8k mod L]A would keep A's torsion
	// (8k mod L is not a multiple of 8); [8]([k]A) clears it.
	{
		a, r := randScalar(t), randScalar(t)
		A := new(edwards25519.Point).ScalarBaseMult(a)
		A.Add(A, ts[1])
		R := new(edwards25519.Point).ScalarBaseMult(r)
		Ab, Rb := A.Bytes(), R.Bytes()
		m := findMessage(t, Rb, Ab, func(k *edwards25519.Scalar) bool {
			kk := new(big.Int).SetBytes(reverse(k.Bytes()))
			kk.Mul(kk, big.NewInt(8)).Mod(kk, orderL)
			return kk.Bit(0)|kk.Bit(1)|kk.Bit(2) != 0 && !residueZero(ts[0], ts[1], k)
		})
		S := new(edwards25519.Scalar).MultiplyAdd(challenge(Rb, Ab, m), a, r)
		cases = append(cases, edgeCase{name: "A=mixed/pre-reduced", item: Item{Ed25519, Ab, m, append(Rb, S.Bytes()...)}, zip215: true, stdlib: false})
	}

	// An honest signature, then S moved out of range.
	pub, priv, _ := ed25519.GenerateKey(nil)
	msg := []byte("S out of range")
	sig := ed25519.Sign(priv, msg)
	for _, add := range []*big.Int{orderL, new(big.Int).Lsh(big.NewInt(1), 253), new(big.Int).Lsh(big.NewInt(1), 255)} {
		s := new(big.Int).SetBytes(reverse(sig[32:]))
		s.Add(s, add)
		if s.BitLen() > 256 {
			t.Fatal("S overflows 256 bits")
		}
		bad := append(bytes.Clone(sig[:32]), le(s)...)
		cases = append(cases, edgeCase{name: fmt.Sprintf("S+2^%d", add.BitLen()-1), item: Item{Ed25519, pub, msg, bad}, wantErr: ErrSignature})
	}
	cases[len(cases)-3].name = "S+L"

	// Non-canonical R: the identity as y = p+1 (and as x = −0), with k
	// over the bytes as sent (valid), or over the canonical re-encoding.
	a := randScalar(t)
	Ab := new(edwards25519.Point).ScalarBaseMult(a).Bytes()
	one := big.NewInt(1)
	canonR := edwards25519.NewIdentityPoint().Bytes()
	for _, nc := range []struct {
		name string
		R    []byte
	}{{"y=p+1", encodeY(new(big.Int).Add(fieldP, one), false)}, {"x=-0", encodeY(one, true)}} {
		m := []byte("non-canonical R")
		S := new(edwards25519.Scalar).Multiply(challenge(nc.R, Ab, m), a)
		cases = append(cases, edgeCase{name: "R=non-canonical/" + nc.name + "/k-as-sent", item: Item{Ed25519, Ab, m, append(bytes.Clone(nc.R), S.Bytes()...)}, zip215: true, stdlib: false})
		S = new(edwards25519.Scalar).Multiply(challenge(canonR, Ab, m), a)
		cases = append(cases, edgeCase{name: "R=non-canonical/" + nc.name + "/k-re-encoded", item: Item{Ed25519, Ab, m, append(bytes.Clone(nc.R), S.Bytes()...)}, wantErr: ErrInvalid})
	}

	// Non-canonical A: the identity as y = p+1 (the cofactorless equation
	// holds too, and crypto/ed25519 decodes A leniently), and (0, −1) with
	// x = −0 and an odd k (a residue of order 2).
	{
		r := randScalar(t)
		Rb := new(edwards25519.Point).ScalarBaseMult(r).Bytes()
		sig := append(bytes.Clone(Rb), r.Bytes()...) // S = r: k·A is small-order
		A := encodeY(new(big.Int).Add(fieldP, one), false)
		cases = append(cases, edgeCase{name: "A=non-canonical/y=p+1", item: Item{Ed25519, A, []byte("m"), sig}, zip215: true, stdlib: true})
		A = encodeY(new(big.Int).Sub(fieldP, one), true)
		m := findMessage(t, Rb, A, func(k *edwards25519.Scalar) bool { return k.Bytes()[0]&1 == 1 })
		cases = append(cases, edgeCase{name: "A=non-canonical/x=-0/residue", item: Item{Ed25519, A, m, sig}, zip215: true, stdlib: false})
	}

	// Encodings that are not points at all.
	y := big.NewInt(2)
	for onCurve(y) {
		y.Add(y, one)
	}
	cases = append(cases,
		edgeCase{name: "A=not-on-curve", item: Item{Ed25519, encodeY(y, false), msg, sig}, wantErr: ErrPublicKey},
		edgeCase{name: "R=not-on-curve", item: Item{Ed25519, pub, msg, append(encodeY(y, false), sig[32:]...)}, wantErr: ErrSignature},
		edgeCase{name: "honest", item: Item{Ed25519, pub, msg, sig}, zip215: true, stdlib: true},
	)
	return cases
}

func reverse(b []byte) []byte {
	r := bytes.Clone(b)
	for i := range len(r) / 2 {
		r[i], r[len(r)-1-i] = r[len(r)-1-i], r[i]
	}
	return r
}

// honest returns n valid Ed25519 items with distinct keys.
func honest(t testing.TB, n int) []Item {
	items := make([]Item, n)
	for i := range items {
		pub, priv, _ := ed25519.GenerateKey(nil)
		m := fmt.Appendf(nil, "message %d", i)
		items[i] = Item{Ed25519, pub, m, ed25519.Sign(priv, m)}
	}
	return items
}

// checkVerdict compares one item's error with a case's expectation.
func checkVerdict(t *testing.T, path string, c edgeCase, err error) {
	t.Helper()
	switch {
	case c.zip215 && err != nil:
		t.Errorf("%s: %s: rejected (%v), ZIP-215 accepts", path, c.name, err)
	case !c.zip215 && !errors.Is(err, c.wantErr):
		t.Errorf("%s: %s: got %v, want %v", path, c.name, err, c.wantErr)
	}
}

func TestEd25519EdgeCases(t *testing.T) {
	cases := edgeCases(t)
	var all []Item
	for _, c := range cases {
		if got := ed25519.Verify(c.item.PublicKey, c.item.Message, c.item.Signature); got != c.stdlib {
			t.Errorf("%s: crypto/ed25519 says %v, want %v: the case is not built as named", c.name, got, c.stdlib)
		}
		checkVerdict(t, "Single", c, Single(c.item))
		// Alone among honest items, at a random place in a batch.
		items := honest(t, 15)
		at := mrand.IntN(len(items) + 1)
		items = append(items[:at], append([]Item{c.item}, items[at:]...)...)
		for i, err := range (&Verifier{Parallelism: 1}).Verify(items) {
			if i == at {
				checkVerdict(t, "Verify", c, err)
			} else if err != nil {
				t.Errorf("Verify with %s: honest item %d rejected: %v", c.name, i, err)
			}
		}
		all = append(all, c.item)
	}
	// All of them in one batch, in each split across cores.
	for _, p := range []int{1, 2, 4} {
		for i, err := range (&Verifier{Parallelism: p}).Verify(all) {
			checkVerdict(t, fmt.Sprintf("Verify(all, p=%d)", p), cases[i], err)
		}
	}
}

// TestZIP215SmallOrder checks ZIP-215's rule that every combination of the
// 14 encodings of small-order points as A and R verifies with S = 0, in
// both paths.
func TestZIP215SmallOrder(t *testing.T) {
	canonical, nonCanonical := smallOrderEncodings(t)
	encs := append(canonical, nonCanonical...)
	id := edwards25519.NewIdentityPoint()
	seen := map[string]bool{}
	for _, e := range encs {
		if seen[string(e)] {
			t.Fatalf("%x twice", e)
		}
		seen[string(e)] = true
		if new(edwards25519.Point).MultByCofactor(mustPoint(t, e)).Equal(id) != 1 {
			t.Fatalf("%x is not of small order", e)
		}
	}
	for _, e := range nonCanonical {
		if bytes.Equal(mustPoint(t, e).Bytes(), e) {
			t.Fatalf("%x is canonical", e)
		}
	}
	var items []Item
	for _, A := range encs {
		for _, R := range encs {
			items = append(items, Item{Ed25519, A, []byte("Zcash"), append(bytes.Clone(R), make([]byte, 32)...)})
		}
	}
	for _, it := range items {
		if err := Single(it); err != nil {
			t.Errorf("Single: A=%x R=%x: %v", it.PublicKey, it.Signature[:32], err)
		}
	}
	items = append(items, honest(t, 4)...)
	for i, err := range Verify(items) {
		if err != nil {
			t.Errorf("Verify: item %d: %v", i, err)
		}
	}
}

// TestEd25519Blame plants bad signatures in batches of many sizes and
// checks that exactly those are named, on one core and on several.
func TestEd25519Blame(t *testing.T) {
	base := honest(t, 70)
	for _, n := range []int{2, 3, 8, 9, 17, 64, 70} {
		for _, nbad := range []int{1, 2, 5, n} {
			if nbad > n {
				continue
			}
			items := append([]Item(nil), base[:n]...)
			bad := map[int]bool{}
			for len(bad) < nbad {
				i := mrand.IntN(n)
				if bad[i] {
					continue
				}
				bad[i] = true
				it := items[i]
				it.Message = append(bytes.Clone(it.Message), '!')
				items[i] = it
			}
			for _, p := range []int{1, 3} {
				for i, err := range (&Verifier{Parallelism: p}).Verify(items) {
					if bad[i] != (err != nil) {
						t.Errorf("n=%d bad=%d p=%d: item %d: %v, bad %v", n, nbad, p, i, err, bad[i])
					}
					if err != nil && !errors.Is(err, ErrInvalid) {
						t.Errorf("item %d: %v, want ErrInvalid", i, err)
					}
				}
			}
		}
	}
}

func hexBytes(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
