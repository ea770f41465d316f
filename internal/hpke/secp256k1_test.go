package hpke

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// TestSecp256k1AgainstDecred compares the secp256k1 KEM's key pairs and
// agreements (internal/ecdhx8's PublicKeyOne and ECDHOne, constant time)
// with decred's variable-time reference: keys of GenerateKey,
// NewEphemeral and DeriveKeyPair, and the scalars 1, 2, n-2 and n-1,
// each against a random peer and the generator.
func TestSecp256k1AgainstDecred(t *testing.T) {
	kem := Secp256k1()
	n := secp256k1.Params().N
	var keys []*PrivateKey
	for _, v := range []*big.Int{big.NewInt(1), big.NewInt(2), new(big.Int).Sub(n, big.NewInt(2)), new(big.Int).Sub(n, big.NewInt(1))} {
		sk, err := kem.NewPrivateKey(v.FillBytes(make([]byte, 32)))
		if err != nil {
			t.Fatalf("scalar %v: %v", v, err)
		}
		keys = append(keys, sk)
	}
	for i := range 20 {
		sk, err := kem.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		d, err := kem.DeriveKeyPair([]byte{byte(i)})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, sk, d, kem.NewEphemeral())
	}
	g := secp256k1.NewPrivateKey(new(secp256k1.ModNScalar).SetInt(1)).PubKey()
	for _, sk := range keys {
		ref := secp256k1.PrivKeyFromBytes(sk.Bytes())
		if want := ref.PubKey().SerializeUncompressed(); !bytes.Equal(sk.PublicKey(), want) {
			t.Fatalf("%x: public key %x, decred says %x", sk.Bytes(), sk.PublicKey(), want)
		}
		peer, _ := secp256k1.GeneratePrivateKey()
		for _, p := range []*secp256k1.PublicKey{peer.PubKey(), g} {
			pk, err := kem.NewPublicKey(p.SerializeUncompressed())
			if err != nil {
				t.Fatal(err)
			}
			got, err := kem.DH(sk, pk)
			if err != nil {
				t.Fatal(err)
			}
			if want := secp256k1.GenerateSharedSecret(ref, p); !bytes.Equal(got, want) {
				t.Fatalf("%x: shared secret %x, decred says %x", sk.Bytes(), got, want)
			}
		}
	}
}
