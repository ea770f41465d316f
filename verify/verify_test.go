package verify

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	secpecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"go.uber.org/goleak"
	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func derSig(r, s *big.Int) []byte {
	var b cryptobyte.Builder
	b.AddASN1(asn1.SEQUENCE, func(b *cryptobyte.Builder) {
		b.AddASN1BigInt(r)
		b.AddASN1BigInt(s)
	})
	return b.BytesOrPanic()
}

func fixedSig(r, s *big.Int) []byte {
	out := make([]byte, 64)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:])
	return out
}

func bigHex(t testing.TB, s string) *big.Int {
	t.Helper()
	return new(big.Int).SetBytes(hexBytes(t, s))
}

// TestP256RFC6979 checks the RFC 6979 A.2.5 signatures (P-256, SHA-256) in
// both encodings, and that each no longer verifies with another message.
func TestP256RFC6979(t *testing.T) {
	pub := append([]byte{4}, hexBytes(t, "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"+
		"7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299")...)
	for _, v := range []struct{ msg, r, s string }{
		{"sample", "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716", "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"},
		{"test", "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367", "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"},
	} {
		r, s := bigHex(t, v.r), bigHex(t, v.s)
		items := []Item{
			{P256, pub, []byte(v.msg), derSig(r, s)},
			{P256Fixed, pub, []byte(v.msg), fixedSig(r, s)},
			{P256, pub, []byte(v.msg + "!"), derSig(r, s)},
			{P256Fixed, pub, []byte(v.msg + "!"), fixedSig(r, s)},
		}
		errs := Verify(items)
		for i, err := range errs {
			if (i < 2) != (err == nil) || err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("%q item %d: %v", v.msg, i, err)
			}
			if !errors.Is(Single(items[i]), ErrInvalid) != (i < 2) {
				t.Errorf("%q item %d: Single disagrees", v.msg, i)
			}
		}
	}
}

// TestSecp256k1Vector checks a published RFC 6979 secp256k1 signature:
// private key 1, SHA-256("Satoshi Nakamoto").
func TestSecp256k1Vector(t *testing.T) {
	pub := hexBytes(t, "0279BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798")
	r := bigHex(t, "934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8")
	s := bigHex(t, "2442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5")
	good := Item{Secp256k1, pub, []byte("Satoshi Nakamoto"), derSig(r, s)}
	bad := good
	bad.Message = []byte("Satoshi Nakamoto!")
	errs := Verify([]Item{good, bad})
	if errs[0] != nil || !errors.Is(errs[1], ErrInvalid) {
		t.Fatalf("got %v", errs)
	}
}

// TestBIP340Vectors runs BIP-340's verification vectors (0 to 14) through
// both paths.
func TestBIP340Vectors(t *testing.T) {
	f, err := os.Open("testdata/bip340-vectors.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var items []Item
	var want []bool
	for _, row := range rows[1:] {
		items = append(items, Item{BIP340, hexBytes(t, row[2]), hexBytes(t, row[4]), hexBytes(t, row[5])})
		want = append(want, row[6] == "TRUE")
	}
	for i, err := range (&Verifier{Parallelism: 3}).Verify(items) {
		if (err == nil) != want[i] {
			t.Errorf("vector %d (%s): %v", i, rows[i+1][7], err)
		}
		if (Single(items[i]) == nil) != want[i] {
			t.Errorf("vector %d: Single disagrees", i)
		}
	}
}

// mixed returns n valid items of every scheme, interleaved.
func mixed(t testing.TB, n int) []Item {
	var items []Item
	for i := range n {
		m := fmt.Appendf(nil, "message %d", i)
		h := sha256.Sum256(m)
		items = append(items, honest(t, 1)[0])

		pk, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		pub, _ := pk.PublicKey.Bytes()
		der, _ := ecdsa.SignASN1(rand.Reader, pk, h[:])
		items = append(items, Item{P256, pub, m, der})
		r, s, _ := ecdsa.Sign(rand.Reader, pk, h[:])
		items = append(items, Item{P256Fixed, pub, m, fixedSig(r, s)})

		sk, _ := secp256k1.GeneratePrivateKey()
		items = append(items, Item{Secp256k1, sk.PubKey().SerializeCompressed(), m, secpecdsa.Sign(sk, h[:]).Serialize()})
		bk, _ := btcec.NewPrivateKey()
		sig, err := schnorr.Sign(bk, h[:])
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, Item{BIP340, schnorr.SerializePubKey(bk.PubKey()), h[:], sig.Serialize()})
	}
	return items
}

// TestMalformed checks that malformed items get their own typed error and
// leave the answers for the others alone.
func TestMalformed(t *testing.T) {
	good := mixed(t, 2)
	bySchemeGood := map[Scheme]Item{}
	for _, it := range good {
		bySchemeGood[it.Scheme] = it
	}
	with := func(s Scheme, f func(*Item)) Item {
		it := bySchemeGood[s]
		it.PublicKey, it.Message, it.Signature = bytes.Clone(it.PublicKey), bytes.Clone(it.Message), bytes.Clone(it.Signature)
		f(&it)
		return it
	}
	bad := []struct {
		name string
		item Item
		want error
	}{
		{"unknown scheme", Item{Scheme: 0}, ErrUnknownScheme},
		{"scheme 99", with(Ed25519, func(it *Item) { it.Scheme = 99 }), ErrUnknownScheme},
		{"ed25519 short key", with(Ed25519, func(it *Item) { it.PublicKey = it.PublicKey[:31] }), ErrPublicKey},
		{"ed25519 long sig", with(Ed25519, func(it *Item) { it.Signature = append(it.Signature, 0) }), ErrSignature},
		{"ed25519 nil", Item{Scheme: Ed25519}, ErrPublicKey},
		{"ed25519 other message", with(Ed25519, func(it *Item) { it.Message[0] ^= 1 }), ErrInvalid},
		{"p256 compressed key", with(P256, func(it *Item) { it.PublicKey = append([]byte{2 + it.PublicKey[64]&1}, it.PublicKey[1:33]...) }), ErrPublicKey},
		{"p256 key off curve", with(P256, func(it *Item) { it.PublicKey[64] ^= 1 }), ErrPublicKey},
		{"p256 trailing byte", with(P256, func(it *Item) { it.Signature = append(it.Signature, 0) }), ErrSignature},
		{"p256 truncated", with(P256, func(it *Item) { it.Signature = it.Signature[:10] }), ErrSignature},
		{"p256 other message", with(P256, func(it *Item) { it.Message[0] ^= 1 }), ErrInvalid},
		{"p256-fixed 63 bytes", with(P256Fixed, func(it *Item) { it.Signature = it.Signature[:63] }), ErrSignature},
		{"p256-fixed r=0", with(P256Fixed, func(it *Item) { clear(it.Signature[:32]) }), ErrInvalid},
		{"p256-fixed s=n", with(P256Fixed, func(it *Item) { elliptic.P256().Params().N.FillBytes(it.Signature[32:]) }), ErrInvalid},
		{"secp256k1 empty key", with(Secp256k1, func(it *Item) { it.PublicKey = nil }), ErrPublicKey},
		{"secp256k1 not DER", with(Secp256k1, func(it *Item) { it.Signature[0] = 0x31 }), ErrSignature},
		{"secp256k1 other message", with(Secp256k1, func(it *Item) { it.Message[0] ^= 1 }), ErrInvalid},
		{"bip340 31-byte message", with(BIP340, func(it *Item) { it.Message = it.Message[:31] }), ErrMessage},
		{"bip340 33-byte key", with(BIP340, func(it *Item) { it.PublicKey = append([]byte{2}, it.PublicKey...) }), ErrPublicKey},
		{"bip340 short sig", with(BIP340, func(it *Item) { it.Signature = it.Signature[:40] }), ErrSignature},
		{"bip340 other message", with(BIP340, func(it *Item) { it.Message[0] ^= 1 }), ErrInvalid},
	}
	items := slices.Clone(good)
	for _, b := range bad {
		items = append(items, b.item)
	}
	for _, p := range []int{1, 4} {
		errs := (&Verifier{Parallelism: p}).Verify(items)
		for i, err := range errs[:len(good)] {
			if err != nil {
				t.Errorf("p=%d: good item %d (%s): %v", p, i, good[i].Scheme, err)
			}
		}
		for j, b := range bad {
			err := errs[len(good)+j]
			var ie *ItemError
			if !errors.Is(err, b.want) || !errors.As(err, &ie) || ie.Index != len(good)+j {
				t.Errorf("p=%d: %s: got %v, want %v", p, b.name, err, b.want)
			}
			if single := Single(b.item); !errors.Is(single, b.want) {
				t.Errorf("Single: %s: got %v, want %v", b.name, single, b.want)
			}
		}
	}
	if err := errors.Join(Verify(good)...); err != nil {
		t.Errorf("all good: %v", err)
	}
}

// TestParallelOrder checks that every answer lands at its own index
// whatever the parallelism, with bad items of every scheme scattered.
func TestParallelOrder(t *testing.T) {
	items := mixed(t, 12)
	bad := map[int]bool{}
	for i := 3; i < len(items); i += 7 {
		items[i].Signature = bytes.Clone(items[i].Signature)
		items[i].Signature[len(items[i].Signature)-1] ^= 1
		bad[i] = true
	}
	for _, p := range []int{0, 1, 2, 5, 64} {
		for i, err := range (&Verifier{Parallelism: p}).Verify(items) {
			if bad[i] != (err != nil) {
				t.Errorf("p=%d: item %d (%s): %v, bad %v", p, i, items[i].Scheme, err, bad[i])
			}
		}
	}
}

func TestItemError(t *testing.T) {
	errs := Verify([]Item{{Scheme: 42}})
	if got, want := errs[0].Error(), "verify: unknown scheme (item 0, scheme(42))"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, s := range Schemes {
		if strings.HasPrefix(s.String(), "scheme(") {
			t.Errorf("%d has no name", s)
		}
	}
	if len(Verify(nil)) != 0 {
		t.Error("Verify(nil) is not empty")
	}
}

func TestSplit(t *testing.T) {
	s := []int{0, 1, 2, 3, 4, 5, 6}
	for k := range 10 {
		parts := split(s, k)
		var joined []int
		for i, p := range parts {
			joined = append(joined, p...)
			if i > 0 && (len(p) < len(parts[i-1]) || len(p) > len(parts[0])+1) {
				t.Errorf("k=%d: uneven parts %v", k, parts)
			}
		}
		if !slices.Equal(joined, s) || len(parts) != max(1, min(k, len(s))) {
			t.Errorf("k=%d: %v", k, parts)
		}
	}
	if split(nil, 3) != nil {
		t.Error("split(nil) has parts")
	}
}

// TestSecp256k1KeyForms: a secp256k1 key is compressed (0x02/0x03, 33
// bytes) or uncompressed (0x04, 65 bytes) SEC 1. The hybrid form (0x06 or
// 0x07 by the parity of Y, 65 bytes, X9.62), which decred's parser also
// takes, is refused with ErrPublicKey although the signature is valid.
func TestSecp256k1KeyForms(t *testing.T) {
	sk, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	m := []byte("a message")
	h := sha256.Sum256(m)
	sig := secpecdsa.Sign(sk, h[:]).Serialize()
	uncompressed := sk.PubKey().SerializeUncompressed()
	hybrid := append([]byte{0x06 | uncompressed[64]&1}, uncompressed[1:]...)
	wrongParity := append([]byte{0x07 ^ uncompressed[64]&1}, uncompressed[1:]...)
	for _, c := range []struct {
		name string
		key  []byte
		want error
	}{
		{"compressed", sk.PubKey().SerializeCompressed(), nil},
		{"uncompressed", uncompressed, nil},
		{"hybrid", hybrid, ErrPublicKey},
		{"hybrid with the other parity", wrongParity, ErrPublicKey},
		{"uncompressed prefix on 33 bytes", append([]byte{0x04}, uncompressed[1:33]...), ErrPublicKey},
	} {
		it := Item{Secp256k1, c.key, m, sig}
		if err := Single(it); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s key: Single = %v, want %v", c.name, err, c.want)
		}
		if err := Verify([]Item{it})[0]; !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s key: Verify = %v, want %v", c.name, err, c.want)
		}
	}
}
