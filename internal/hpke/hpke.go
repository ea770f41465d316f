// Package hpke implements the parts of RFC 9180 (Hybrid Public Key
// Encryption) that fanseal needs with full control over the ephemeral key:
// DHKEM over P-256, X25519 and secp256k1 with HKDF-SHA256, the base-mode key
// schedule, and the sealing/opening context with its exporter.
//
// Go's crypto/hpke does not let a sender choose or reuse its ephemeral key,
// which the shared-ephemeral and precompute strategies require, so the
// classical KEMs are implemented here on crypto/ecdh, crypto/hkdf and the
// secp256k1 module. Curve arithmetic is never done here: every scalar
// multiplication and point validation is the underlying library's or, in
// the batch methods (batch.go), an IFMA engine's: up to eight agreements
// in one pass, X25519 with internal/x25519x8 and P-256 and secp256k1 with
// internal/ecdhx8, where the CPU has AVX-512 IFMA.
//
// The output is byte-for-byte RFC 9180: the package reproduces the RFC's test
// vectors, and a context sealed here opens with crypto/hpke.
package hpke

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
)

// KDF identifier of HKDF-SHA256, the only KDF this package implements.
const KDFHKDFSHA256 = 0x0001

const versionLabel = "HPKE-v1"

// ErrInvalidKey is returned for a key (public or private) that is not a
// valid encoding of a key of the KEM, or whose Diffie-Hellman output is
// degenerate (a low-order X25519 point, the point at infinity).
var ErrInvalidKey = errors.New("hpke: invalid key")

// labeledExtract is RFC 9180 LabeledExtract with HKDF-SHA256:
// HKDF-Extract(salt, "HPKE-v1" || suiteID || label || ikm), computed as one
// HMAC without building the labeled input.
func labeledExtract(suiteID []byte, salt []byte, label string, ikm []byte) []byte {
	// An empty salt is HashLen zero bytes (RFC 5869), which HMAC's zero
	// padding of a short key already gives.
	m := hmac.New(sha256.New, salt)
	in := make([]byte, 0, len(versionLabel)+len(suiteID)+len(label)+len(ikm)+sha256.Size)
	in = append(in, versionLabel...)
	in = append(in, suiteID...)
	in = append(in, label...)
	in = append(in, ikm...)
	m.Write(in)
	// The input buffer is reused for the output: one allocation.
	return m.Sum(in[:0])
}

// labeledExpand is RFC 9180 LabeledExpand with HKDF-SHA256:
// HKDF-Expand(prk, I2OSP(length, 2) || "HPKE-v1" || suiteID || label || info, length).
func labeledExpand(suiteID []byte, prk []byte, label string, info []byte, length int) ([]byte, error) {
	return newExpander(suiteID, prk).expand(label, info, length)
}

// An expander runs several LabeledExpand calls under one PRK, keying the
// HMAC once.
type expander struct {
	suiteID []byte
	m       hash.Hash
	buf     []byte // scratch for one block's input
}

func newExpander(suiteID, prk []byte) *expander {
	return &expander{suiteID: suiteID, m: hmac.New(sha256.New, prk), buf: make([]byte, 0, 256)}
}

func (e *expander) expand(label string, info []byte, length int) ([]byte, error) {
	if length < 0 || length > 255*sha256.Size {
		return nil, errors.New("hpke: expand length out of range")
	}
	var l [2]byte
	binary.BigEndian.PutUint16(l[:], uint16(length))
	out := make([]byte, 0, length+sha256.Size)
	var prev []byte
	for i := byte(1); len(out) < length; i++ {
		b := append(e.buf[:0], prev...)
		b = append(b, l[:]...)
		b = append(b, versionLabel...)
		b = append(b, e.suiteID...)
		b = append(b, label...)
		b = append(b, info...)
		b = append(b, i)
		e.buf = b
		e.m.Reset()
		e.m.Write(b)
		start := len(out)
		out = e.m.Sum(out)
		prev = out[start:]
	}
	return out[:length:length], nil
}
