//go:build purego

package ecdhx8

import (
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	voi "gitlab.com/yawning/secp256k1-voi"
)

// k256ECDH returns the x-coordinate of k*P (k reduced mod n) on
// secp256k1-voi (fiat-crypto field and scalar arithmetic, the complete
// formulas of Renes, Costello and Batina, a GLV split and a fixed 4-bit
// window whose lookups scan the whole table), or false where k = 0 mod n.
func k256ECDH(k *[32]byte, pub *secp256k1.PublicKey) (out [32]byte, ok bool) {
	var j secp256k1.JacobianPoint
	pub.AsJacobian(&j) // affine and normalized: Z = 1
	var x, y [32]byte
	j.X.PutBytes(&x)
	j.Y.PutBytes(&y)
	p, err := voi.NewPointFromCoords(&x, &y)
	if err != nil {
		panic(err) // unreachable: decred checked the point is on the curve
	}
	var s voi.Scalar
	s.SetBytes(k) // reduces mod n, in constant time
	defer s.Zero()
	if s.IsZero() == 1 {
		return out, false
	}
	r := voi.NewIdentityPoint().ScalarMult(&s, p)
	xb, err := r.XBytes()
	if err != nil {
		panic(err) // unreachable: a prime-order group, s != 0, a valid point
	}
	return [32]byte(xb), true
}

// k256PublicKey returns the uncompressed encoding of k*G on secp256k1-voi
// (a fixed-base comb with the same lookups), or false where k = 0 mod n.
func k256PublicKey(k *[32]byte) (out [65]byte, ok bool) {
	var s voi.Scalar
	s.SetBytes(k) // reduces mod n, in constant time
	defer s.Zero()
	if s.IsZero() == 1 {
		return out, false
	}
	r := voi.NewIdentityPoint().ScalarBaseMult(&s)
	return [65]byte(r.UncompressedBytes()), true
}
