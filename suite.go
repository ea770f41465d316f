package fanseal

import (
	"fmt"
	"strings"

	"github.com/fanseal/fanseal/internal/format"
)

// A Suite is the key encapsulation mechanism of a recipient. Its value is
// the KEM identifier written in the envelope.
type Suite uint16

// The suites. All use HKDF-SHA256.
const (
	// P256 is DHKEM(P-256, HKDF-SHA256), RFC 9180 KEM 0x0010.
	P256 Suite = format.KEMP256
	// X25519 is DHKEM(X25519, HKDF-SHA256), RFC 9180 KEM 0x0020.
	X25519 Suite = format.KEMX25519
	// Secp256k1 is DHKEM(secp256k1, HKDF-SHA256), KEM 0x0016 as proposed
	// in draft-wahby-cfrg-hpke-kem-secp256k1.
	Secp256k1 Suite = format.KEMSecp256k1
	// MLKEM768X25519 is the post-quantum hybrid ML-KEM-768 + X25519
	// (X-Wing), KEM 0x647a of draft-ietf-hpke-pq, through crypto/hpke.
	MLKEM768X25519 Suite = format.KEMMLKEM768X25519
)

// Suites lists every suite, classical first.
var Suites = []Suite{P256, X25519, Secp256k1, MLKEM768X25519}

// String returns the suite's name as used in keys and on the command line:
// p256, x25519, secp256k1 or mlkem768x25519.
func (s Suite) String() string {
	switch s {
	case P256:
		return "p256"
	case X25519:
		return "x25519"
	case Secp256k1:
		return "secp256k1"
	case MLKEM768X25519:
		return "mlkem768x25519"
	}
	return fmt.Sprintf("suite(0x%04x)", uint16(s))
}

// PostQuantum reports whether the suite resists a quantum adversary.
func (s Suite) PostQuantum() bool { return s == MLKEM768X25519 }

// ParseSuite returns the suite with the given name (see Suite.String).
func ParseSuite(name string) (Suite, error) {
	for _, s := range Suites {
		if strings.EqualFold(name, s.String()) {
			return s, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown suite %q (want p256, x25519, secp256k1 or mlkem768x25519)", ErrUnsupported, name)
}

// An AEAD is the authenticated cipher of stanzas and payload. Its value is
// the RFC 9180 AEAD identifier written in the envelope.
type AEAD uint16

// The AEADs.
const (
	AES256GCM        AEAD = format.AEADAES256GCM
	ChaCha20Poly1305 AEAD = format.AEADChaCha20Poly1305
)

// String returns "aes256gcm" or "chacha20poly1305".
func (a AEAD) String() string {
	switch a {
	case AES256GCM:
		return "aes256gcm"
	case ChaCha20Poly1305:
		return "chacha20poly1305"
	}
	return fmt.Sprintf("aead(0x%04x)", uint16(a))
}

// MaxRecipients is the most recipients one envelope can have
// (docs/FORMAT.md, "Limits"), private, identified or anonymous.
const MaxRecipients = 10000

// The format's limit and the library's are one.
var _ [MaxRecipients - format.MaxRecipients]struct{}
var _ [format.MaxRecipients - MaxRecipients]struct{}
