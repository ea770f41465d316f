// Package hpke implements the parts of RFC 9180 (Hybrid Public Key
// Encryption) that fanseal needs with full control over the ephemeral key:
// DHKEM over P-256, X25519 and secp256k1 with HKDF-SHA256, the base-mode key
// schedule, and the sealing/opening context with its exporter.
//
// Go's crypto/hpke does not let a sender choose or reuse its ephemeral key,
// which the shared-ephemeral and precompute strategies require, so the
// classical KEMs are implemented here on crypto/ecdh, crypto/hkdf and the
// secp256k1 module. Curve arithmetic is never done here: every scalar
// multiplication and point validation is the underlying library's.
//
// The output is byte-for-byte RFC 9180: the package reproduces the RFC's test
// vectors, and a context sealed here opens with crypto/hpke.
package hpke

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
)

// KDF identifier of HKDF-SHA256, the only KDF this package implements.
const KDFHKDFSHA256 = 0x0001

const versionLabel = "HPKE-v1"

// ErrInvalidKey is returned for a key (public or private) that is not a
// valid encoding of a key of the KEM, or whose Diffie-Hellman output is
// degenerate (a low-order X25519 point, the point at infinity).
var ErrInvalidKey = errors.New("hpke: invalid key")

// labeledExtract is RFC 9180 LabeledExtract with HKDF-SHA256.
func labeledExtract(suiteID []byte, salt []byte, label string, ikm []byte) []byte {
	in := make([]byte, 0, len(versionLabel)+len(suiteID)+len(label)+len(ikm))
	in = append(in, versionLabel...)
	in = append(in, suiteID...)
	in = append(in, label...)
	in = append(in, ikm...)
	prk, err := hkdf.Extract(sha256.New, in, salt)
	if err != nil {
		panic("hpke: HKDF-Extract failed: " + err.Error()) // unreachable: Extract fails only in FIPS mode for short keys
	}
	return prk
}

// labeledExpand is RFC 9180 LabeledExpand with HKDF-SHA256.
func labeledExpand(suiteID []byte, prk []byte, label string, info []byte, length int) ([]byte, error) {
	in := make([]byte, 0, 2+len(versionLabel)+len(suiteID)+len(label)+len(info))
	in = binary.BigEndian.AppendUint16(in, uint16(length))
	in = append(in, versionLabel...)
	in = append(in, suiteID...)
	in = append(in, label...)
	in = append(in, info...)
	return hkdf.Expand(sha256.New, prk, string(in), length)
}
