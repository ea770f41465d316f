package sim

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"fmt"

	"github.com/fanseal/fanseal/verify"
)

// A signer is a participant's signing key: Ed25519 or ECDSA P-256 (ASN.1
// signatures over SHA-256), as verify names them.
type signer struct {
	scheme verify.Scheme
	pub    []byte
	ed     ed25519.PrivateKey
	ec     *ecdsa.PrivateKey
}

func newSigner(s verify.Scheme) (*signer, error) {
	switch s {
	case verify.Ed25519:
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		return &signer{scheme: s, pub: pub, ed: priv}, err
	case verify.P256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		pub, err := k.PublicKey.Bytes()
		return &signer{scheme: s, pub: pub, ec: k}, err
	}
	return nil, fmt.Errorf("sim: participants sign with ed25519 or p256, not %s", s)
}

func (s *signer) sign(msg []byte) []byte {
	if s.ed != nil {
		return ed25519.Sign(s.ed, msg)
	}
	h := sha256.Sum256(msg)
	sig, err := ecdsa.SignASN1(rand.Reader, s.ec, h[:])
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return sig
}

// checkSignature checks one signature: on the baseline with the standard
// library directly, on fanseal's side with verify.Single (for Ed25519,
// the ZIP-215 rules its batches use).
func checkSignature(side Side, scheme verify.Scheme, key, msg, sig []byte) error {
	if side == Fanseal {
		return verify.Single(verify.Item{Scheme: scheme, PublicKey: key, Message: msg, Signature: sig})
	}
	ok := false
	switch scheme {
	case verify.Ed25519:
		ok = len(key) == ed25519.PublicKeySize && ed25519.Verify(key, msg, sig)
	case verify.P256:
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), key)
		h := sha256.Sum256(msg)
		ok = err == nil && ecdsa.VerifyASN1(pub, h[:], sig)
	}
	if !ok {
		return errBadSignature
	}
	return nil
}
