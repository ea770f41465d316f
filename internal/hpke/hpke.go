// Package hpke implements the parts of RFC 9180 (Hybrid Public Key
// Encryption) that fanseal needs with full control over the ephemeral key:
// DHKEM over P-256, X25519 and secp256k1 with HKDF-SHA256, the base-mode key
// schedule, and the sealing/opening context with its exporter; and the
// post-quantum hybrid MLKEM768-X25519 (hybrid.go), its encapsulation and
// decapsulation composed here of internal/mlkem768's ML-KEM-768 (circl's
// or crypto/mlkem's, see that package) and X25519, so that its X25519
// halves can run in batches and its ML-KEM keys stay parsed.
//
// Go's crypto/hpke does not let a sender choose or reuse its ephemeral key,
// which the shared-ephemeral and precompute strategies require, so the
// classical KEMs are implemented here on crypto/ecdh, crypto/sha256,
// internal/ecdhx8 and the secp256k1 modules. Curve arithmetic is never
// done here: every scalar multiplication and point validation is a
// library's (crypto/ecdh, filippo.io/edwards25519's fixed base for X25519
// public keys; decred's secp256k1 validates secp256k1 points) or an
// engine's: in the batch methods (batch.go) up to eight agreements in one
// pass, X25519 with internal/x25519x8 and P-256 and secp256k1 with
// internal/ecdhx8, where the CPU has AVX-512 IFMA; and every single
// secp256k1 agreement and public key with internal/ecdhx8's ECDHOne and
// PublicKeyOne (a one-lane pass, or internal/k256, or under purego
// secp256k1-voi), so that all of them
// are constant time on every CPU. HMAC,
// HKDF's building block, runs on pooled SHA-256 states (mac), the same
// function as crypto/hmac's without its allocations.
//
// The output is byte-for-byte RFC 9180: the package reproduces the RFC's test
// vectors and draft-ietf-hpke-pq's MLKEM768-X25519 vectors, and a context
// sealed here opens with crypto/hpke.
package hpke

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"sync"
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
	m := getMAC(salt)
	defer m.release()
	m.start()
	b := append(m.buf[:0], versionLabel...)
	b = append(b, suiteID...)
	b = append(b, label...)
	b = append(b, ikm...)
	m.write(b)
	return m.finish(make([]byte, 0, sha256.Size))
}

// labeledExpand is RFC 9180 LabeledExpand with HKDF-SHA256:
// HKDF-Expand(prk, I2OSP(length, 2) || "HPKE-v1" || suiteID || label || info, length).
func labeledExpand(suiteID []byte, prk []byte, label string, info []byte, length int) ([]byte, error) {
	e := newExpander(suiteID, prk)
	defer e.release()
	return e.expand(label, length, info)
}

// An expander runs several LabeledExpand calls under one PRK, keying the
// HMAC once. release returns its state to the pool.
type expander struct {
	suiteID []byte
	m       *mac
}

func newExpander(suiteID, prk []byte) expander {
	return expander{suiteID: suiteID, m: getMAC(prk)}
}

func (e expander) release() { e.m.release() }

// expand is LabeledExpand of label and the concatenation of info.
func (e expander) expand(label string, length int, info ...[]byte) ([]byte, error) {
	if length < 0 || length > 255*sha256.Size {
		return nil, errors.New("hpke: expand length out of range")
	}
	var l [2]byte
	binary.BigEndian.PutUint16(l[:], uint16(length))
	out := make([]byte, 0, length+sha256.Size)
	var prev []byte
	for i := byte(1); len(out) < length; i++ {
		m := e.m
		m.start()
		b := append(m.buf[:0], prev...)
		b = append(b, l[:]...)
		b = append(b, versionLabel...)
		b = append(b, e.suiteID...)
		b = append(b, label...)
		for _, in := range info {
			b = append(b, in...)
		}
		m.write(append(b, i))
		start := len(out)
		out = m.finish(out)
		prev = out[start:]
	}
	return out[:length:length], nil
}

// A mac computes HMAC-SHA256 (RFC 2104) under one key, any number of
// times: H((K ^ opad) || H((K ^ ipad) || message)), K the key padded with
// zeros to the block size (hashed first if longer). It is the same
// function as crypto/hmac's, on two SHA-256 states that the pool keeps,
// so that the key schedules of many stanzas do not allocate a new HMAC,
// and its two hashes, for each of their five HMAC keys.
type mac struct {
	inner, outer hash.Hash
	key          [sha256.BlockSize]byte
	pad          [sha256.BlockSize]byte
	sum          [sha256.Size]byte
	buf          []byte // a message, gathered to be hashed in one write
}

var macs = sync.Pool{New: func() any {
	return &mac{inner: sha256.New(), outer: sha256.New(), buf: make([]byte, 0, 256)}
}}

// getMAC returns a mac keyed with key, from the pool.
func getMAC(key []byte) *mac {
	m := macs.Get().(*mac)
	if len(key) > sha256.BlockSize {
		m.inner.Reset()
		m.inner.Write(key)
		key = m.inner.Sum(m.sum[:0])
	}
	copy(m.key[:], key)
	return m
}

// release clears the key and returns m to the pool.
func (m *mac) release() {
	clear(m.key[:])
	clear(m.pad[:])
	clear(m.sum[:])
	m.inner.Reset()
	m.outer.Reset()
	macs.Put(m)
}

// start begins a message.
func (m *mac) start() {
	for i, k := range m.key {
		m.pad[i] = k ^ 0x36
	}
	m.inner.Reset()
	m.inner.Write(m.pad[:])
}

// write hashes b, gathered in m.buf (which it keeps, grown if it grew),
// and clears it.
func (m *mac) write(b []byte) {
	m.inner.Write(b)
	clear(b)
	m.buf = b[:0]
}

// finish appends the message's HMAC to dst.
func (m *mac) finish(dst []byte) []byte {
	sum := m.inner.Sum(m.sum[:0])
	for i, k := range m.key {
		m.pad[i] = k ^ 0x5c
	}
	m.outer.Reset()
	m.outer.Write(m.pad[:])
	m.outer.Write(sum)
	return m.outer.Sum(dst)
}

// HKDF32 is HKDF-SHA256 (RFC 5869) with 32-byte outputs: the PRK
// Extract(salt, secret), then out[i] = Expand(PRK, infos[i], 32), one
// HMAC each. It is crypto/hkdf's Extract and Expand, on the pooled HMAC
// states of the key schedule.
func HKDF32(secret, salt []byte, infos ...string) (out [][]byte) {
	m := getMAC(salt)
	m.start()
	m.write(append(m.buf[:0], secret...))
	var prk [sha256.Size]byte
	m.finish(prk[:0])
	m.release()
	m = getMAC(prk[:])
	defer m.release()
	clear(prk[:])
	out = make([][]byte, len(infos))
	for i, info := range infos {
		m.start()
		b := append(m.buf[:0], info...)
		m.write(append(b, 1))
		out[i] = m.finish(make([]byte, 0, sha256.Size))
	}
	return out
}

// AppendHMAC appends HMAC-SHA256(key, msg) to dst, as crypto/hmac
// computes it.
func AppendHMAC(dst, key, msg []byte) []byte {
	m := getMAC(key)
	defer m.release()
	m.start()
	m.inner.Write(msg)
	return m.finish(dst)
}
