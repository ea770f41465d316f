package ecdhx8

import (
	"crypto/ecdh"
	"encoding/binary"
	"math/bits"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	voi "gitlab.com/yawning/secp256k1-voi"
)

// The portable path, one lane at a time, with the same verdicts as the
// IFMA path, constant time in the scalar: crypto/ecdh for P-256, and for
// secp256k1 gitlab.com/yawning/secp256k1-voi (fiat-crypto field and
// scalar arithmetic, the complete formulas of Renes, Costello and Batina,
// a GLV split and a fixed 4-bit window with table lookups that scan the
// whole table, whichever digit is wanted; a fixed-base comb with the same
// lookups for public keys). decred's secp256k1 parses and validates the
// points (public data) and computes nothing from a scalar: its
// ScalarMultNonConst and ScalarBaseMultNonConst take a time that depends
// on the scalar.

// reduceP256 returns k mod n for the P-256 group order n, in constant
// time: k < 2^256 < 2n, so at most one subtraction, selected by a mask.
func reduceP256(k *[32]byte) [32]byte {
	var kw, nw, d [4]uint64
	var nb [32]byte
	curveParams[P256].n.FillBytes(nb[:])
	for i := range 4 {
		kw[i] = binary.BigEndian.Uint64(k[24-8*i:])
		nw[i] = binary.BigEndian.Uint64(nb[24-8*i:])
	}
	var borrow uint64
	for i := range 4 {
		d[i], borrow = bits.Sub64(kw[i], nw[i], borrow)
	}
	keep := -borrow // all ones where k < n
	var r [32]byte
	for i := range 4 {
		binary.BigEndian.PutUint64(r[24-8*i:], kw[i]&keep|d[i]&^keep)
	}
	return r
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
	p := k256Point(pub)
	var s voi.Scalar
	s.SetBytes(k) // reduces mod n, in constant time
	defer s.Zero()
	if s.IsZero() == 1 {
		return out, ErrIdentity
	}
	r := voi.NewIdentityPoint().ScalarMult(&s, p)
	x, err := r.XBytes()
	if err != nil {
		panic(err) // unreachable: a prime-order group, s != 0, a valid point
	}
	return [32]byte(x), nil
}

// k256Point converts a point that decred parsed and validated.
func k256Point(pub *secp256k1.PublicKey) *voi.Point {
	var j secp256k1.JacobianPoint
	pub.AsJacobian(&j) // affine and normalized: Z = 1
	var x, y [32]byte
	j.X.PutBytes(&x)
	j.Y.PutBytes(&y)
	p, err := voi.NewPointFromCoords(&x, &y)
	if err != nil {
		panic(err) // unreachable: decred checked the point is on the curve
	}
	return p
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
	var s voi.Scalar
	s.SetBytes(k) // reduces mod n, in constant time
	defer s.Zero()
	if s.IsZero() == 1 {
		return out, ErrIdentity
	}
	r := voi.NewIdentityPoint().ScalarBaseMult(&s)
	return [65]byte(r.UncompressedBytes()), nil
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
