package verify_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/fanseal/fanseal/verify"
)

// A message carries endorsements under several schemes; one of them was
// made over another message. Verify names it, and the others pass.
func Example() {
	msg := []byte("view 7: commit block 1234")
	var items []verify.Item
	for range 3 {
		pub, priv, _ := ed25519.GenerateKey(rand.Reader)
		items = append(items, verify.Item{Scheme: verify.Ed25519, PublicKey: pub, Message: msg, Signature: ed25519.Sign(priv, msg)})
	}
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	items[1].Signature = ed25519.Sign(other, []byte("view 7: commit block 1235"))

	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	h := sha256.Sum256(msg)
	sig, _ := ecdsa.SignASN1(rand.Reader, key, h[:])
	pub, _ := key.PublicKey.Bytes()
	items = append(items, verify.Item{Scheme: verify.P256, PublicKey: pub, Message: msg, Signature: sig})

	errs := verify.Verify(items)
	for i, err := range errs {
		fmt.Println(i, err)
	}
	fmt.Println("all valid:", errors.Join(errs...) == nil)
	// Output:
	// 0 <nil>
	// 1 verify: invalid signature (item 1, ed25519)
	// 2 <nil>
	// 3 <nil>
	// all valid: false
}
