// Package verify checks many signatures at once and names the bad ones.
//
// Use it where a node receives messages that carry several signatures each
// (endorsements, confirmations, certificates) and checks them one by one.
// Verify takes a slice of Items, each a public key, a message and a
// signature under one Scheme, and returns one error per item, in input
// order: nil for a valid signature. Items of different schemes may be
// mixed in one call.
//
//   - Ed25519 items are checked together with batch verification (a random
//     linear combination of the verification equations, from
//     github.com/hdevalence/ed25519consensus), which costs about half of
//     checking them one by one. Batches hold at most 32 signatures and
//     are spread across cores. When a batch fails, the bad items are found
//     by splitting it into groups and testing each (see Verifier.Verify):
//     64 signatures with one bad one cost about 1.8 times 64 valid ones,
//     on one core or two; when every signature is bad, each costs about
//     three single verifications, so forged items buy an attacker little.
//   - ECDSA and BIP-340 Schnorr items are checked one by one, in parallel in
//     a sliding window of Verifier.Parallelism goroutines.
//
// # Ed25519 validation rules
//
// Ed25519 has no single accepted notion of a valid signature (Chalkias,
// Garillot and Nikolaenko, "Taming the many EdDSAs", 2020). Batch
// verification can only agree with single verification when both use a
// cofactored equation, so this package checks every Ed25519 signature, in
// a batch or alone (see Single), under the ZIP-215 rules:
//
//   - A (the public key) and R (the first half of the signature) are
//     decoded without canonicality checks: a y coordinate at or above
//     2^255−19 is reduced, and x = 0 with the sign bit set is accepted.
//     RFC 8032 rejects these encodings.
//   - Small-order and mixed-order A and R are accepted. Strict verifiers
//     (libsodium) reject small-order points.
//   - S (the second half) must be canonical, below the group order L; this
//     keeps signatures non-malleable. RFC 8032 agrees.
//   - The equation is cofactored: [8][S]B = [8]R + [8][k]A, with
//     k = SHA-512(R ‖ A ‖ M) over the encodings as received. RFC 8032
//     permits this form; crypto/ed25519 checks the cofactorless
//     [S]B = R + [k]A and so rejects some signatures accepted here (a
//     small-order residue in R or A) and also rejects non-canonical R.
//
// So two nodes using this package agree on every signature whether they
// batch or not; a node using crypto/ed25519 may disagree on signatures
// crafted with small-order components, never on honestly made ones.
//
// # Other schemes
//
// ECDSA items carry the message itself, hashed with SHA-256 here. ECDSA
// signatures are malleable ((r, n−s) verifies too); identify a signed
// statement by its key and message, never by the signature bytes. BIP-340
// items carry the 32-byte message that BIP-340 signs.
//
// # Errors
//
// Each error is an *ItemError that names the item and wraps one of
// ErrUnknownScheme, ErrPublicKey, ErrSignature, ErrMessage or ErrInvalid.
// A malformed item never changes the answer for the others.
// errors.Join(errs...) is nil when every signature is valid.
package verify

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// A Scheme is a signature algorithm together with its key, signature and
// message encodings.
type Scheme uint8

const (
	// Ed25519 (RFC 8032) under the ZIP-215 rules: a 32-byte public key, a
	// 64-byte signature, a message of any length.
	Ed25519 Scheme = iota + 1
	// P256 is ECDSA over NIST P-256 with SHA-256: an uncompressed SEC 1
	// public key (65 bytes), an ASN.1 DER signature.
	P256
	// P256Fixed is P256 with a fixed-size signature: r ‖ s, 32 bytes each,
	// big-endian (IEEE P1363, as in JWS ES256 and WebCrypto).
	P256Fixed
	// Secp256k1 is ECDSA over secp256k1 with SHA-256: a compressed (33
	// bytes) or uncompressed (65 bytes) SEC 1 public key, never X9.62's
	// hybrid form (0x06, 0x07), a strict DER signature.
	Secp256k1
	// BIP340 is Schnorr over secp256k1 as in BIP-340: a 32-byte x-only
	// public key, a 64-byte signature, a 32-byte message.
	BIP340
)

// Schemes lists every scheme.
var Schemes = []Scheme{Ed25519, P256, P256Fixed, Secp256k1, BIP340}

// String returns the scheme's short name, as benchmarks and errors print it.
func (s Scheme) String() string {
	switch s {
	case Ed25519:
		return "ed25519"
	case P256:
		return "p256-asn1"
	case P256Fixed:
		return "p256-fixed"
	case Secp256k1:
		return "secp256k1"
	case BIP340:
		return "bip340"
	}
	return fmt.Sprintf("scheme(%d)", uint8(s))
}

// An Item is one signature to check. Verify reads the slices and keeps no
// reference to them.
type Item struct {
	Scheme    Scheme
	PublicKey []byte
	Message   []byte
	Signature []byte
}

// Errors wrapped by every *ItemError; match them with errors.Is.
var (
	ErrUnknownScheme = errors.New("verify: unknown scheme")
	ErrPublicKey     = errors.New("verify: malformed public key")
	ErrSignature     = errors.New("verify: malformed signature")
	ErrMessage       = errors.New("verify: malformed message")
	ErrInvalid       = errors.New("verify: invalid signature")
)

// An ItemError says which item was rejected and why.
type ItemError struct {
	Index  int    // the item's index in the slice given to Verify
	Scheme Scheme // the item's scheme
	Err    error  // wraps one of the package's Err values
}

func (e *ItemError) Error() string {
	return fmt.Sprintf("%v (item %d, %s)", e.Err, e.Index, e.Scheme)
}

func (e *ItemError) Unwrap() error { return e.Err }

// A Verifier checks items in parallel. The zero value is ready to use.
type Verifier struct {
	// Parallelism bounds the goroutines that check items at once; 0 means
	// GOMAXPROCS.
	Parallelism int
}

func (v *Verifier) parallelism() int {
	if v != nil && v.Parallelism > 0 {
		return v.Parallelism
	}
	return runtime.GOMAXPROCS(0)
}

// Verify checks items with the zero Verifier.
func Verify(items []Item) []error {
	var v Verifier
	return v.Verify(items)
}

// Single checks one item on its own, without batching, under the same rules
// as Verify. Its error wraps one of the package's Err values.
func Single(it Item) error {
	switch it.Scheme {
	case Ed25519:
		return ed25519Single(it)
	case P256, P256Fixed:
		return p256Single(it)
	case Secp256k1:
		return secp256k1Single(it)
	case BIP340:
		return bip340Single(it)
	}
	return ErrUnknownScheme
}

// Verify checks every item and returns one error per item, in input order,
// nil for a valid signature; each non-nil error is an *ItemError.
//
// Well-formed Ed25519 items are split into batches of at most 32 items, and
// into up to Parallelism batches of at least 8 when there are cores to
// spare; each batch is checked with one batch verification. The other
// items are checked one by one. All of this work runs in one sliding
// window of Parallelism goroutines.
//
// A batch that fails is split into about √n groups, and each group is
// checked as a batch (a lone item on its own), on idle slots of the window
// when there are some; the last group is not checked when all the others
// passed, since a failing batch holds at least one invalid signature (a
// batch of signatures that each pass the cofactored equation always
// passes). Failing groups are split again until the bad items are named.
func (v *Verifier) Verify(items []Item) []error {
	errs := make([]error, len(items))
	fail := func(i int, err error) {
		if err != nil {
			errs[i] = &ItemError{Index: i, Scheme: items[i].Scheme, Err: err}
		}
	}
	var ed, other []int
	for i, it := range items {
		switch it.Scheme {
		case Ed25519:
			if err := ed25519Shape(it); err != nil {
				fail(i, err)
			} else {
				ed = append(ed, i)
			}
		case P256, P256Fixed, Secp256k1, BIP340:
			other = append(other, i)
		default:
			fail(i, ErrUnknownScheme)
		}
	}

	p := v.parallelism()
	var units []func()
	batches := max(min(p, len(ed)/minBatch), (len(ed)+maxBatch-1)/maxBatch)
	var w window
	for _, chunk := range split(ed, batches) {
		units = append(units, func() {
			ed25519Check(w, items, chunk, func(i int) { fail(i, ed25519Reject(items[i])) })
		})
	}
	for _, i := range other {
		units = append(units, func() { fail(i, Single(items[i])) })
	}
	if p == 1 || len(units) == 1 {
		for _, u := range units {
			u()
		}
		return errs
	}
	// Up to p workers each take the next unit as soon as they finish one: a
	// sliding window without a goroutine per unit. Workers that run out of
	// units free their slot for blame (see window.each).
	w.g = new(errgroup.Group)
	w.g.SetLimit(p)
	var next atomic.Int64
	for range min(p, len(units)) {
		w.g.Go(func() error {
			for i := next.Add(1) - 1; i < int64(len(units)); i = next.Add(1) - 1 {
				units[i]()
			}
			return nil
		})
	}
	w.g.Wait()
	return errs
}

// A window lends idle slots of the errgroup that bounds Verify's
// goroutines; with a nil errgroup everything runs inline.
type window struct{ g *errgroup.Group }

// each runs f(0) to f(n-1), each in a free slot of the window if there is
// one and inline otherwise, and returns when all have returned. It never
// waits for a slot, so work already in the window may call it.
func (w window) each(n int, f func(int)) {
	var wg sync.WaitGroup
	for j := range n {
		if w.g != nil && j < n-1 {
			wg.Add(1)
			if w.g.TryGo(func() error { defer wg.Done(); f(j); return nil }) {
				continue
			}
			wg.Done()
		}
		f(j)
	}
	wg.Wait()
}

// split cuts s into k parts (at least one) whose lengths differ by at most
// one, the longer ones last. An empty s has no parts.
func split(s []int, k int) [][]int {
	if len(s) == 0 {
		return nil
	}
	k = max(1, min(k, len(s)))
	parts := make([][]int, 0, k)
	short := len(s) / k
	long := len(s) % k // the last long parts have one more element
	for j := range k {
		n := short
		if j >= k-long {
			n++
		}
		parts = append(parts, s[:n:n])
		s = s[n:]
	}
	return parts
}
