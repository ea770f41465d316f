package hpke

import (
	"crypto/ecdh"
	"crypto/subtle"
	"errors"
	"fmt"
)

// One X25519 agreement at a time (an open's, the hybrid's X25519 half)
// runs on circl's scalar Montgomery ladder where that is faster than
// crypto/ecdh's: amd64 with BMI2 and ADX (0.82x crypto/ecdh's time on an
// Intel Xeon, BenchmarkX25519One), outside FIPS 140-3 mode and the purego
// build (x25519one_circl.go). Everywhere else it is crypto/ecdh's. Both
// are constant time: a ladder of a fixed 255 steps with conditional swaps
// by masks, on fixed-size field elements. Both clamp the scalar and
// ignore the top bit of u as RFC 7748 says, and take u at or above p as u
// mod p; both outputs are checked the same way here, all zeros (a
// low-order point) being refused as crypto/ecdh refuses it, in constant
// time. TestX25519OneMatchesECDH checks them against each other on random
// and edge scalars and points.

// errX25519LowOrder is the error of an agreement with a low-order point,
// whose output is all zeros (RFC 7748, section 6.1).
var errX25519LowOrder = errors.New("X25519: low-order point, the shared secret is all zeros")

// X25519One returns one X25519 agreement, X25519(scalar, u), as an open
// computes it (circl's ladder where it runs, crypto/ecdh's elsewhere),
// refusing a u that is not 32 bytes and an all-zero result (a low-order
// u) with ErrInvalidKey. It is cheaper than a pass of internal/x25519x8
// for a single agreement on every engine.
func X25519One(scalar *[32]byte, u []byte) ([]byte, error) { return x25519One(scalar, u) }

// x25519One returns X25519(scalar, u), refusing an all-zero result.
func x25519One(scalar *[32]byte, u []byte) ([]byte, error) {
	if len(u) != 32 {
		return nil, fmt.Errorf("%w: X25519 public key is %d bytes, want 32", ErrInvalidKey, len(u))
	}
	if fastX25519() {
		out := circlX25519(scalar, (*[32]byte)(u))
		var zero [32]byte
		if subtle.ConstantTimeCompare(out[:], zero[:]) == 1 {
			return nil, fmt.Errorf("%w: %v", ErrInvalidKey, errX25519LowOrder)
		}
		return out[:], nil
	}
	return ecdhX25519(scalar, u)
}

// ecdhX25519 is x25519One on crypto/ecdh.
func ecdhX25519(scalar *[32]byte, u []byte) ([]byte, error) {
	sk, err := ecdh.X25519().NewPrivateKey(scalar[:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	pk, err := ecdh.X25519().NewPublicKey(u)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return ecdhKey{k: sk}.dh(pk)
}
