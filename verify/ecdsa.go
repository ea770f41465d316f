package verify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"fmt"
	"math/big"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	secpecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

// p256Single checks a P256 or P256Fixed item with crypto/ecdsa.
func p256Single(it Item) error {
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), it.PublicKey)
	if err != nil {
		return fmt.Errorf("%w: not an uncompressed P-256 point", ErrPublicKey)
	}
	h := sha256.Sum256(it.Message)
	ok := false
	if it.Scheme == P256Fixed {
		if len(it.Signature) != 64 {
			return fmt.Errorf("%w: %d bytes, want 64", ErrSignature, len(it.Signature))
		}
		r := new(big.Int).SetBytes(it.Signature[:32])
		s := new(big.Int).SetBytes(it.Signature[32:])
		ok = ecdsa.Verify(pub, h[:], r, s)
	} else {
		if !wellFormedASN1(it.Signature) {
			return fmt.Errorf("%w: not a DER SEQUENCE of two INTEGERs", ErrSignature)
		}
		ok = ecdsa.VerifyASN1(pub, h[:], it.Signature)
	}
	if !ok {
		return ErrInvalid
	}
	return nil
}

// wellFormedASN1 reports whether sig is SEQUENCE { r INTEGER, s INTEGER }
// and nothing more, so that a malformed encoding is told apart from a
// signature that does not verify.
func wellFormedASN1(sig []byte) bool {
	var inner cryptobyte.String
	var r, s []byte
	input := cryptobyte.String(sig)
	return input.ReadASN1(&inner, asn1.SEQUENCE) && input.Empty() &&
		inner.ReadASN1Integer(&r) && inner.ReadASN1Integer(&s) && inner.Empty()
}

// secp256k1Single checks a Secp256k1 item with decred's ecdsa package.
func secp256k1Single(it Item) error {
	// decred's parser also takes X9.62's hybrid form (0x06 and 0x07);
	// SEC 1 has only the compressed and uncompressed ones.
	switch k := it.PublicKey; {
	case len(k) == secp256k1.PubKeyBytesLenCompressed && (k[0] == 0x02 || k[0] == 0x03):
	case len(k) == secp256k1.PubKeyBytesLenUncompressed && k[0] == 0x04:
	default:
		return fmt.Errorf("%w: not a compressed or uncompressed SEC 1 secp256k1 point", ErrPublicKey)
	}
	pub, err := secp256k1.ParsePubKey(it.PublicKey)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPublicKey, err)
	}
	sig, err := secpecdsa.ParseDERSignature(it.Signature)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSignature, err)
	}
	h := sha256.Sum256(it.Message)
	if !sig.Verify(h[:], pub) {
		return ErrInvalid
	}
	return nil
}

// bip340Single checks a BIP340 item with btcec's schnorr package (BIP-340
// on decred's secp256k1; decred's own schnorr package is a different
// scheme, EC-Schnorr-DCRv0).
func bip340Single(it Item) error {
	if len(it.Message) != 32 {
		return fmt.Errorf("%w: %d bytes, BIP-340 signs 32", ErrMessage, len(it.Message))
	}
	pub, err := schnorr.ParsePubKey(it.PublicKey)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPublicKey, err)
	}
	sig, err := schnorr.ParseSignature(it.Signature)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSignature, err)
	}
	if !sig.Verify(it.Message, pub) {
		return ErrInvalid
	}
	return nil
}
