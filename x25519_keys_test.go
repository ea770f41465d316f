package fanseal

import (
	"bytes"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
)

// Curve25519 (RFC 7748): v^2 = u^3 + A u^2 + u over GF(p), p = 2^255 - 19,
// A = 486662.
var (
	p25519 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	a25519 = big.NewInt(486662)
)

// lowOrderU derives, from the curve equation alone, the u-coordinates of
// every point of order dividing 8 on Curve25519 or its quadratic twist:
// the u-coordinates that X25519 (which never looks at v) maps to a point
// whose multiples by the cofactor vanish. The curve has order 8·ℓ and the
// twist 4·ℓ' with ℓ, ℓ' large primes (RFC 7748, section 4.1; SafeCurves),
// so these are all its low-order inputs.
//
// u(2P) = (u^2 - 1)^2 / (4u(u^2 + A u + 1)), and 2P is the point at
// infinity exactly when the denominator vanishes. Starting from infinity,
// the test solves u(2P) = w for the u-coordinates of the halves of each
// point found, until no new one appears:
//
//   - the halves of infinity: u = 0, and the roots of u^2 + A u + 1;
//   - the halves of w: (u^2 - 1)^2 = 4w·u(u^2 + A u + 1), a palindromic
//     quartic; with s = u + 1/u it is s^2 - 4w s - 4(1 + A w) = 0, so
//     s = 2w ± 2·sqrt(w^2 + A w + 1), and u^2 - s u + 1 = 0.
func lowOrderU(t *testing.T) []*big.Int {
	p := p25519
	mod := func(x *big.Int) *big.Int { return x.Mod(x, p) }
	sqrt := func(x *big.Int) (*big.Int, bool) {
		r := new(big.Int).ModSqrt(mod(new(big.Int).Set(x)), p)
		return r, r != nil
	}
	half := new(big.Int).ModInverse(big.NewInt(2), p)
	// roots of u^2 - s u + 1 = 0
	quadratic := func(s *big.Int) []*big.Int {
		d := mod(new(big.Int).Sub(new(big.Int).Mul(s, s), big.NewInt(4)))
		r, ok := sqrt(d)
		if !ok {
			return nil
		}
		return []*big.Int{
			mod(new(big.Int).Mul(new(big.Int).Add(s, r), half)),
			mod(new(big.Int).Mul(new(big.Int).Sub(s, r), half)),
		}
	}
	var found []*big.Int
	add := func(u *big.Int) bool {
		for _, f := range found {
			if f.Cmp(u) == 0 {
				return false
			}
		}
		found = append(found, u)
		return true
	}
	// The halves of infinity: u = 0 and the roots of u^2 + A u + 1 = 0,
	// that is u^2 - (-A) u + 1.
	frontier := []*big.Int{}
	for _, u := range append([]*big.Int{big.NewInt(0)}, quadratic(mod(new(big.Int).Neg(a25519)))...) {
		if add(u) {
			frontier = append(frontier, u)
		}
	}
	for round := 0; len(frontier) > 0; round++ {
		if round > 8 {
			t.Fatal("the halving does not end: a mistake in the derivation")
		}
		var next []*big.Int
		for _, w := range frontier {
			// s = 2w ± 2 sqrt(w^2 + A w + 1)
			d := mod(new(big.Int).Add(new(big.Int).Mul(w, new(big.Int).Add(w, a25519)), big.NewInt(1)))
			r, ok := sqrt(d)
			if !ok {
				continue
			}
			for _, sign := range []int64{1, -1} {
				s := mod(new(big.Int).Add(new(big.Int).Lsh(w, 1), new(big.Int).Mul(big.NewInt(2*sign), r)))
				for _, u := range quadratic(s) {
					if add(u) {
						next = append(next, u)
					}
				}
			}
		}
		frontier = next
	}
	// Each u found doubles to infinity within three doublings: check it
	// with the formula rather than trusting the solving.
	for _, u := range found {
		x, z := new(big.Int).Set(u), big.NewInt(1)
		for range 3 {
			// x2 = (x^2 - z^2)^2, z2 = 4xz(x^2 + A xz + z^2)
			xx, zz, xz := new(big.Int).Mul(x, x), new(big.Int).Mul(z, z), new(big.Int).Mul(x, z)
			x2 := mod(new(big.Int).Exp(new(big.Int).Sub(xx, zz), big.NewInt(2), p))
			z2 := mod(new(big.Int).Mul(new(big.Int).Lsh(xz, 2), new(big.Int).Add(new(big.Int).Add(xx, zz), new(big.Int).Mul(a25519, xz))))
			x, z = x2, z2
		}
		if z.Sign() != 0 {
			t.Fatalf("u = %v does not vanish under three doublings", u)
		}
	}
	return found
}

// TestLowOrderDerivation checks the derivation against the list published
// with libsodium (crypto_scalarmult/curve25519/ref10/x25519_ref10.c,
// has_small_order), which names, besides 0, 1 and p - 1:
//
//	325606250916557431795983626356110631294008115727848805560023387167927233504 (order 8)
//	39382357235489614581723060781553021112529911719440698176882885853963445705823 (order 8)
func TestLowOrderDerivation(t *testing.T) {
	got := lowOrderU(t)
	var want []*big.Int
	for _, s := range []string{
		"0", "1",
		"57896044618658097711785492504343953926634992332820282019728792003956564819948", // p - 1
		"325606250916557431795983626356110631294008115727848805560023387167927233504",
		"39382357235489614581723060781553021112529911719440698176882885853963445705823",
	} {
		u, _ := new(big.Int).SetString(s, 10)
		want = append(want, u)
	}
	cmp := func(a, b *big.Int) int { return a.Cmp(b) }
	slices.SortFunc(got, cmp)
	slices.SortFunc(want, cmp)
	if !slices.EqualFunc(got, want, func(a, b *big.Int) bool { return a.Cmp(b) == 0 }) {
		t.Fatalf("derived low-order u %v, libsodium lists %v", got, want)
	}
}

// le32 is n as 32 little-endian bytes (RFC 7748's encoding of u).
func le32(n *big.Int) []byte {
	b := n.FillBytes(make([]byte, 32))
	slices.Reverse(b)
	return b
}

// A badX25519 is a 32-byte string that is not an X25519 public key, and
// the word its error must say.
type badX25519 struct {
	name, reason string
	pub          []byte
}

// badX25519Keys returns every 32-byte string that is not the canonical
// encoding of a point (bit 255 set, u ≥ p), and the low-order points, in
// every encoding; good is a valid key.
func badX25519Keys(t *testing.T, good []byte) []badX25519 {
	top := new(big.Int).Lsh(big.NewInt(1), 255)
	setTop := func(b []byte) []byte {
		b = bytes.Clone(b)
		b[31] |= 0x80
		return b
	}
	var cases []badX25519
	cases = append(cases, badX25519{"a key with bit 255 set", "bit 255", setTop(good)})
	for i := range int64(19) {
		// p + i, i < 19: the non-canonical encodings below 2^255.
		v := new(big.Int).Add(p25519, big.NewInt(i))
		cases = append(cases, badX25519{"u = p + " + big.NewInt(i).String(), "not reduced", le32(v)})
	}
	cases = append(cases, badX25519{"u = 2^255 - 1", "not reduced", le32(new(big.Int).Sub(top, big.NewInt(1)))})
	for _, l := range lowOrderU(t) {
		cases = append(cases, badX25519{"low-order u = " + l.String(), "low-order", le32(l)})
		forms := []*big.Int{l}
		if v := new(big.Int).Add(l, p25519); v.Cmp(top) < 0 {
			forms = append(forms, v)
		}
		for _, f := range forms {
			cases = append(cases, badX25519{"low-order u = " + l.String() + " as " + f.String() + " with bit 255 set", "bit 255", setTop(le32(f))})
		}
	}
	return cases
}

// TestX25519PublicKeyRefused: an X25519 public key has one encoding, the
// canonical one (u < p, bit 255 clear), and is not a low-order point.
// NewRecipient and ParseRecipient, in fanseal's and age's spelling, refuse
// every other 32-byte string with ErrInvalidKey saying why
// (docs/FORMAT.md, "Text forms").
func TestX25519PublicKeyRefused(t *testing.T) {
	_, rs := identities(t, X25519, 1)
	good := rs[0].Bytes()
	cases := badX25519Keys(t, good)
	for _, c := range cases {
		check := func(how string, err error) {
			t.Helper()
			if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), c.reason) {
				t.Errorf("%s, %s: %v, want ErrInvalidKey saying %q", c.name, how, err, c.reason)
			}
		}
		_, err := NewRecipient(X25519, c.pub)
		check("NewRecipient", err)
		_, err = ParseRecipient(specKeyText("fanseal_x25519_", c.pub))
		check("fanseal text", err)
		_, err = ParseRecipient(specAge("age", c.pub))
		check("age text", err)
	}
	// The largest canonical u, p - 1, is low order; p - 2 is a valid key
	// (a point of the curve or its twist), and so are 9 and the key above.
	for _, ok := range [][]byte{good, le32(big.NewInt(9)), le32(new(big.Int).Sub(p25519, big.NewInt(2)))} {
		if _, err := NewRecipient(X25519, ok); err != nil {
			t.Errorf("NewRecipient(%x): %v", ok, err)
		}
	}
}

// TestHybridX25519HalfRefused: the X25519 rule covers the X25519 half of
// an ML-KEM-768+X25519 public key (docs/FORMAT.md, "Text forms"): with
// any of the 32-byte strings an X25519 key may not be, after a valid
// ML-KEM-768 encapsulation key, NewRecipient and ParseRecipient, in
// fanseal's and age's (age1pq1…) spelling, refuse the key with
// ErrInvalidKey saying why and naming the half; the identity's own key
// and one with another valid X25519 half are taken.
func TestHybridX25519HalfRefused(t *testing.T) {
	ids, rs := identities(t, MLKEM768X25519, 1)
	pub := rs[0].Bytes()
	ek, half := pub[:len(pub)-32], pub[len(pub)-32:]
	for _, c := range badX25519Keys(t, half) {
		key := slices.Concat(ek, c.pub)
		check := func(how string, err error) {
			t.Helper()
			if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), c.reason) || !strings.Contains(err.Error(), "X25519 half") {
				t.Errorf("%s, %s: %v, want ErrInvalidKey saying %q of the X25519 half", c.name, how, err, c.reason)
			}
		}
		_, err := NewRecipient(MLKEM768X25519, key)
		check("NewRecipient", err)
		_, err = ParseRecipient(specKeyText("fanseal_mlkem768x25519_", key))
		check("fanseal text", err)
		_, err = ParseRecipient(specAge("age1pq", key))
		check("age text", err)
	}
	for _, ok := range [][]byte{pub, slices.Concat(ek, le32(big.NewInt(9)))} {
		if _, err := NewRecipient(MLKEM768X25519, ok); err != nil {
			t.Errorf("NewRecipient(ML-KEM-768 key || %x): %v", ok[len(ok)-32:], err)
		}
	}
	if got := ids[0].Recipient().String(); got != rs[0].String() {
		t.Fatalf("identity's recipient %s, want %s", got, rs[0])
	}
}
