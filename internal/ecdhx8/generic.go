package ecdhx8

import (
	"crypto/ecdh"
	"encoding/binary"
	"math/bits"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// The portable path, one lane at a time, with the same verdicts as the
// IFMA path, constant time in the scalar: crypto/ecdh for P-256, and for
// secp256k1 k256ECDH and k256PublicKey: internal/k256 (k256_own.go), or
// under purego gitlab.com/yawning/secp256k1-voi (k256_voi.go). decred's
// secp256k1 parses and validates the points (public data) and computes
// nothing from a scalar: its ScalarMultNonConst and
// ScalarBaseMultNonConst take a time that depends on the scalar.

// reduceScalar returns k mod n for the group order n of c, and whether k
// was already below n, in constant time: k < 2^256 < 2n for both curves,
// so at most one subtraction, selected by a mask.
func reduceScalar(c Curve, k *[32]byte) (r [32]byte, below bool) {
	var kw, nw, d [4]uint64
	nb := &curveParams()[c].nBytes
	for i := range 4 {
		kw[i] = binary.BigEndian.Uint64(k[24-8*i:])
		nw[i] = binary.BigEndian.Uint64(nb[24-8*i:])
	}
	var borrow uint64
	for i := range 4 {
		d[i], borrow = bits.Sub64(kw[i], nw[i], borrow)
	}
	keep := -borrow // all ones where k < n
	for i := range 4 {
		binary.BigEndian.PutUint64(r[24-8*i:], kw[i]&keep|d[i]&^keep)
	}
	return r, borrow == 1
}

// reduceP256 returns k mod n for the P-256 group order n, in constant
// time.
func reduceP256(k *[32]byte) [32]byte {
	r, _ := reduceScalar(P256, k)
	return r
}

// ValidScalar reports, in constant time, whether the big-endian k is a
// private key of c: an integer in [1, n-1]. It reports false for an
// unknown curve.
func ValidScalar(c Curve, k *[32]byte) bool {
	if !c.valid() {
		return false
	}
	r, below := reduceScalar(c, k)
	zero := isZero32(&r) // computed whatever below is
	clear(r[:])
	return below && !zero
}

func isZero32(b *[32]byte) bool {
	var acc byte
	for _, x := range b {
		acc |= x
	}
	return acc == 0
}

// parseGeneric parses a point with the reference library, after the
// structural checks of parseEncoding.
func parseP256Generic(b []byte) (*ecdh.PublicKey, error) {
	if _, err := parseEncoding(P256, b); err != nil {
		return nil, err
	}
	pub, err := ecdh.P256().NewPublicKey(b)
	if err != nil {
		return nil, errNotOnCurve
	}
	return pub, nil
}

func parseK256Generic(b []byte) (*secp256k1.PublicKey, error) {
	e, err := parseEncoding(Secp256k1, b)
	if err != nil {
		return nil, err
	}
	pub, err := secp256k1.ParsePubKey(b)
	if err != nil {
		if e.compressed {
			return nil, errNoPoint
		}
		return nil, errNotOnCurve
	}
	return pub, nil
}

func ecdhGeneric(c Curve, dst *[Lanes][32]byte, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) (errs [Lanes]error) {
	for i := range n {
		var out [32]byte
		out, errs[i] = ecdhPortable(c, &scalars[i], points[i])
		dst[i] = out
	}
	return errs
}

// ecdhPortable is one lane of ecdhGeneric.
func ecdhPortable(c Curve, k *[32]byte, point []byte) (out [32]byte, err error) {
	if c == P256 {
		pub, err := parseP256Generic(point)
		if err != nil {
			return out, err
		}
		r := reduceP256(k)
		if isZero32(&r) {
			return out, ErrIdentity
		}
		priv, err := ecdh.P256().NewPrivateKey(r[:])
		clear(r[:])
		if err != nil {
			panic(err) // unreachable: r is in [1, n-1]
		}
		s, err := priv.ECDH(pub)
		if err != nil {
			panic(err) // unreachable: a prime-order group, a valid point
		}
		return [32]byte(s), nil
	}
	pub, err := parseK256Generic(point)
	if err != nil {
		return out, err
	}
	out, ok := k256ECDH(k, pub)
	if !ok {
		return out, ErrIdentity
	}
	return out, nil
}

func publicKeysGeneric(c Curve, dst *[Lanes][65]byte, scalars *[Lanes][32]byte, n int) (errs [Lanes]error) {
	for i := range n {
		var out [65]byte
		out, errs[i] = publicKeyPortable(c, &scalars[i])
		dst[i] = out
	}
	return errs
}

// publicKeyPortable is one lane of publicKeysGeneric.
func publicKeyPortable(c Curve, k *[32]byte) (out [65]byte, err error) {
	if c == P256 {
		r := reduceP256(k)
		if isZero32(&r) {
			return out, ErrIdentity
		}
		priv, err := ecdh.P256().NewPrivateKey(r[:])
		clear(r[:])
		if err != nil {
			panic(err) // unreachable: r is in [1, n-1]
		}
		return [65]byte(priv.PublicKey().Bytes()), nil
	}
	out, ok := k256PublicKey(k)
	if !ok {
		return out, ErrIdentity
	}
	return out, nil
}

func parsePointsGeneric(c Curve, dst *[Lanes][65]byte, points *[Lanes][]byte, n int) (errs [Lanes]error) {
	for i := range n {
		var out [65]byte
		if c == P256 {
			var pub *ecdh.PublicKey
			if pub, errs[i] = parseP256Generic(points[i]); errs[i] == nil {
				out = [65]byte(pub.Bytes())
			}
		} else {
			var pub *secp256k1.PublicKey
			if pub, errs[i] = parseK256Generic(points[i]); errs[i] == nil {
				out = [65]byte(pub.SerializeUncompressed())
			}
		}
		dst[i] = out
	}
	return errs
}
