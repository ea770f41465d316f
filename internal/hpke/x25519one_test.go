package hpke

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"math/big"
	"testing"
)

var x25519Cases = flag.Int("hpke.x25519cases", 20000, "random cases of TestX25519OneMatchesECDH (2 000 with -short)")

// x25519EdgePoints are u-coordinates where implementations go wrong: the
// low-order points (0, 1, the two of order 8, p-1) and the same values
// plus p (non-canonical, below 2^255), with the top bit set (which RFC
// 7748 ignores), p itself, 2^255-1, and small values.
func x25519EdgePoints(t *testing.T) [][32]byte {
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	order8a, _ := new(big.Int).SetString("325606250916557431795983626356110631294008115727848805560023387167927233504", 10)
	order8b, _ := new(big.Int).SetString("39382357235489614581723060781553021112529911719440698176882885853963445705823", 10)
	var out [][32]byte
	le := func(v *big.Int) (b [32]byte) {
		be := v.FillBytes(make([]byte, 32))
		for i := range 32 {
			b[i] = be[31-i]
		}
		return b
	}
	top := new(big.Int).Lsh(big.NewInt(1), 255)
	for _, v := range []*big.Int{big.NewInt(0), big.NewInt(1), order8a, order8b, new(big.Int).Sub(p, big.NewInt(1)), big.NewInt(2), big.NewInt(9)} {
		for _, w := range []*big.Int{v, new(big.Int).Add(v, p)} {
			if w.Cmp(top) >= 0 {
				continue
			}
			out = append(out, le(w))
			b := le(w)
			b[31] |= 0x80
			out = append(out, b)
		}
	}
	out = append(out, le(p), le(new(big.Int).Sub(top, big.NewInt(1))))
	if len(out) < 20 {
		t.Fatalf("%d edge points", len(out))
	}
	return out
}

// TestX25519OneMatchesECDH: x25519One (circl's ladder where it runs) and
// crypto/ecdh agree on every output and every refusal, for random scalars
// and points and for edge scalars and points: the low-order points and
// their non-canonical forms (refused: the output is all zeros), u at or
// above p, the top bit set.
func TestX25519OneMatchesECDH(t *testing.T) {
	if !fastX25519() {
		t.Log("circl's X25519 does not run here: x25519One is crypto/ecdh's, checked against itself")
	}
	check := func(s, u *[32]byte) {
		t.Helper()
		got, gerr := x25519One(s, u[:])
		want, werr := ecdhX25519(s, u[:])
		if (gerr == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("X25519(%x, %x): %x, %v; crypto/ecdh %x, %v", s, u, got, gerr, want, werr)
		}
	}
	edgeScalars := [][32]byte{{}, {1}, {8}}
	var ff [32]byte
	for i := range ff {
		ff[i] = 0xff
	}
	edgeScalars = append(edgeScalars, ff)
	refused := 0
	for _, u := range x25519EdgePoints(t) {
		for _, s := range append(edgeScalars, randomKey()) {
			check(&s, &u)
		}
		s := randomKey()
		if _, err := x25519One(&s, u[:]); err != nil {
			refused++
		}
	}
	// 0, 1, the two of order 8 and p-1, 0+p and 1+p (the others' +p is
	// above 2^255), each with and without the top bit, and p itself.
	if refused != 15 {
		t.Errorf("%d edge points refused", refused)
	}
	n := *x25519Cases
	if testing.Short() {
		n = 2000
	}
	for range n {
		s, u := randomKey(), randomKey()
		check(&s, &u)
	}
	if _, err := x25519One(&ff, make([]byte, 31)); err == nil {
		t.Error("a 31-byte point was accepted")
	}
}

func randomKey() (k [32]byte) {
	rand.Read(k[:])
	return k
}

// TestX25519OneVector: RFC 7748, section 5.2's first test vector.
func TestX25519OneVector(t *testing.T) {
	s, _ := hex.DecodeString("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4")
	u, _ := hex.DecodeString("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c")
	want := "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"
	got, err := x25519One((*[32]byte)(s), u)
	if err != nil || hex.EncodeToString(got) != want {
		t.Fatalf("X25519 = %x, %v; want %s", got, err, want)
	}
}

func BenchmarkX25519One(b *testing.B) {
	s, u := randomKey(), randomKey()
	b.Run("impl=x25519One", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x25519One(&s, u[:])
		}
	})
	// crypto/ecdh's agreement with keys made beforehand, as an identity's
	// key is (its NewPrivateKey computes the public key, a second ladder).
	sk, err := ecdh.X25519().NewPrivateKey(s[:])
	if err != nil {
		b.Fatal(err)
	}
	pk, err := ecdh.X25519().NewPublicKey(u[:])
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=crypto-ecdh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sk.ECDH(pk)
		}
	})
}
