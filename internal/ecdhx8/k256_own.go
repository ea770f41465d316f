//go:build !purego

package ecdhx8

import (
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/fanseal/fanseal/internal/k256"
)

// k256ECDH returns the x-coordinate of k*P (k reduced mod n) on
// internal/k256, or false where k = 0 mod n.
func k256ECDH(k *[32]byte, pub *secp256k1.PublicKey) ([32]byte, bool) {
	var j secp256k1.JacobianPoint
	pub.AsJacobian(&j) // affine and normalized: Z = 1
	var x, y [32]byte
	j.X.PutBytes(&x)
	j.Y.PutBytes(&y)
	return k256.ECDH(k, &x, &y)
}

// k256PublicKey returns the uncompressed encoding of k*G on
// internal/k256, or false where k = 0 mod n.
func k256PublicKey(k *[32]byte) ([65]byte, bool) { return k256.PublicKey(k) }
