package ecdhx8

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// benchKeys returns eight private scalars and eight peer public keys:
// P-256 uncompressed (the only encoding crypto/ecdh accepts), secp256k1
// compressed (the encoding kex sends).
func benchKeys(b *testing.B, c Curve) (scalars [Lanes][32]byte, points [Lanes][]byte) {
	for i := range Lanes {
		if c == P256 {
			k, err := ecdh.P256().GenerateKey(rand.Reader)
			if err != nil {
				b.Fatal(err)
			}
			scalars[i] = [32]byte(k.Bytes())
			peer, err := ecdh.P256().GenerateKey(rand.Reader)
			if err != nil {
				b.Fatal(err)
			}
			points[i] = peer.PublicKey().Bytes()
		} else {
			k, err := secp256k1.GeneratePrivateKey()
			if err != nil {
				b.Fatal(err)
			}
			scalars[i] = [32]byte(k.Serialize())
			peer, err := secp256k1.GeneratePrivateKey()
			if err != nil {
				b.Fatal(err)
			}
			points[i] = peer.PubKey().SerializeCompressed()
		}
	}
	return scalars, points
}

func curveKey(c Curve) string {
	if c == P256 {
		return "p256"
	}
	return "secp256k1"
}

// perOp reports the cost of one of the n operations of a pass.
func perOp(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/op-lane")
}

// BenchmarkECDH is the cost of a pass of n key agreements with peer
// public keys as they arrive on the wire. impl=ifma: one ECDH call (the
// points parsed, and for secp256k1 decompressed, in the pass).
// impl=stdlib (P-256): n crypto/ecdh agreements, the private keys already
// parsed (ecdh.PrivateKey, as a caller keeps them), each peer key parsed
// by ecdh.P256().NewPublicKey in the loop, as opening a message must.
// impl=decred (secp256k1): what kex did per agreement before ECDHOne,
// secp256k1.ParsePubKey on the compressed key, then GenerateSharedSecret
// (ScalarMultNonConst, variable time, and the affine x-coordinate),
// private keys parsed.
func BenchmarkECDH(b *testing.B) {
	for _, c := range curves {
		scalars, points := benchKeys(b, c)
		var privs [Lanes]*ecdh.PrivateKey
		var secps [Lanes]*secp256k1.PrivateKey
		for i := range Lanes {
			if c == P256 {
				var err error
				if privs[i], err = ecdh.P256().NewPrivateKey(scalars[i][:]); err != nil {
					b.Fatal(err)
				}
			} else {
				secps[i] = secp256k1.PrivKeyFromBytes(scalars[i][:])
			}
		}
		ref := "stdlib"
		if c == Secp256k1 {
			ref = "decred"
		}
		for n := 1; n <= Lanes; n++ {
			b.Run(fmt.Sprintf("curve=%s/lanes=%d/impl=ifma", curveKey(c), n), func(b *testing.B) {
				if !Accelerated() {
					b.Skip("no AVX-512 IFMA")
				}
				var dst [Lanes][32]byte
				for b.Loop() {
					if errs := ECDH(c, &dst, &scalars, &points, n); errs[0] != nil {
						b.Fatal(errs[0])
					}
				}
				perOp(b, n)
			})
			b.Run(fmt.Sprintf("curve=%s/lanes=%d/impl=%s", curveKey(c), n, ref), func(b *testing.B) {
				for b.Loop() {
					for i := range n {
						if c == P256 {
							pub, err := ecdh.P256().NewPublicKey(points[i])
							if err != nil {
								b.Fatal(err)
							}
							if _, err := privs[i].ECDH(pub); err != nil {
								b.Fatal(err)
							}
						} else {
							pub, err := secp256k1.ParsePubKey(points[i])
							if err != nil {
								b.Fatal(err)
							}
							secp256k1.GenerateSharedSecret(secps[i], pub)
						}
					}
				}
				perOp(b, n)
			})
		}
	}
}

// BenchmarkPublicKeys is key generation from given scalars: one
// PublicKeys call (impl=ifma, the fixed-base comb) against n
// ecdh.P256().NewPrivateKey(k).PublicKey() (impl=stdlib) or n decred
// PrivKeyFromBytes(k).PubKey() (ScalarBaseMultNonConst) serialized
// uncompressed (impl=decred).
func BenchmarkPublicKeys(b *testing.B) {
	for _, c := range curves {
		scalars, _ := benchKeys(b, c)
		ref := "stdlib"
		if c == Secp256k1 {
			ref = "decred"
		}
		for n := 1; n <= Lanes; n++ {
			b.Run(fmt.Sprintf("curve=%s/lanes=%d/impl=ifma", curveKey(c), n), func(b *testing.B) {
				if !Accelerated() {
					b.Skip("no AVX-512 IFMA")
				}
				var dst [Lanes][65]byte
				PublicKeys(c, &dst, &scalars, n) // the table, once
				for b.Loop() {
					PublicKeys(c, &dst, &scalars, n)
				}
				perOp(b, n)
			})
			b.Run(fmt.Sprintf("curve=%s/lanes=%d/impl=%s", curveKey(c), n, ref), func(b *testing.B) {
				for b.Loop() {
					for i := range n {
						if c == P256 {
							k, err := ecdh.P256().NewPrivateKey(scalars[i][:])
							if err != nil {
								b.Fatal(err)
							}
							_ = k.PublicKey().Bytes()
						} else {
							_ = secp256k1.PrivKeyFromBytes(scalars[i][:]).PubKey().SerializeUncompressed()
						}
					}
				}
				perOp(b, n)
			})
		}
	}
}

// BenchmarkParsePoints is the validation and decompression of compressed
// secp256k1 keys: one ParsePoints call (impl=ifma) against n decred
// ParsePubKey calls (impl=decred).
func BenchmarkParsePoints(b *testing.B) {
	_, points := benchKeys(b, Secp256k1)
	for n := 1; n <= Lanes; n++ {
		b.Run(fmt.Sprintf("curve=secp256k1/lanes=%d/impl=ifma", n), func(b *testing.B) {
			if !Accelerated() {
				b.Skip("no AVX-512 IFMA")
			}
			var dst [Lanes][65]byte
			for b.Loop() {
				ParsePoints(Secp256k1, &dst, &points, n)
			}
			perOp(b, n)
		})
		b.Run(fmt.Sprintf("curve=secp256k1/lanes=%d/impl=decred", n), func(b *testing.B) {
			for b.Loop() {
				for i := range n {
					if _, err := secp256k1.ParsePubKey(points[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			perOp(b, n)
		})
	}
}

// BenchmarkSecp256k1Agree is one secp256k1 agreement with a compressed
// peer key, as an open or a kex channel computes it: impl=ifma-1lane, an
// ECDH pass with one lane (skipped without AVX-512 IFMA); impl=portable,
// the constant-time portable path (decred's ParsePubKey, then
// internal/k256's ECDH, or under purego secp256k1-voi's ScalarMult); impl=decred, ParsePubKey and
// GenerateSharedSecret (ScalarMultNonConst, variable time: what fanseal
// used before); impl=default, ECDHOne, whichever of the constant-time
// paths this build and CPU use.
func BenchmarkSecp256k1Agree(b *testing.B) {
	scalars, points := benchKeys(b, Secp256k1)
	b.Run("impl=ifma-1lane", func(b *testing.B) {
		if !Accelerated() {
			b.Skip("no AVX-512 IFMA")
		}
		var dst [Lanes][32]byte
		for b.Loop() {
			if errs := ECDH(Secp256k1, &dst, &scalars, &points, 1); errs[0] != nil {
				b.Fatal(errs[0])
			}
		}
	})
	b.Run("impl=portable", func(b *testing.B) {
		for b.Loop() {
			if _, err := ecdhPortable(Secp256k1, &scalars[0], points[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=decred", func(b *testing.B) {
		priv := secp256k1.PrivKeyFromBytes(scalars[0][:])
		for b.Loop() {
			pub, err := secp256k1.ParsePubKey(points[0])
			if err != nil {
				b.Fatal(err)
			}
			secp256k1.GenerateSharedSecret(priv, pub)
		}
	})
	b.Run("impl=default", func(b *testing.B) {
		for b.Loop() {
			if _, err := ECDHOne(Secp256k1, &scalars[0], points[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSecp256k1PublicKey is one secp256k1 public key from its
// scalar: impl=ifma-1lane, a PublicKeys pass with one lane;
// impl=portable, internal/k256's PublicKey (under purego secp256k1-voi's
// ScalarBaseMult); impl=decred,
// PrivKeyFromBytes(k).PubKey() (ScalarBaseMultNonConst, variable time);
// impl=default, PublicKeyOne.
func BenchmarkSecp256k1PublicKey(b *testing.B) {
	scalars, _ := benchKeys(b, Secp256k1)
	b.Run("impl=ifma-1lane", func(b *testing.B) {
		if !Accelerated() {
			b.Skip("no AVX-512 IFMA")
		}
		var dst [Lanes][65]byte
		PublicKeys(Secp256k1, &dst, &scalars, 1) // the table, once
		for b.Loop() {
			PublicKeys(Secp256k1, &dst, &scalars, 1)
		}
	})
	b.Run("impl=portable", func(b *testing.B) {
		publicKeyPortable(Secp256k1, &scalars[0]) // the tables, once
		for b.Loop() {
			publicKeyPortable(Secp256k1, &scalars[0])
		}
	})
	b.Run("impl=decred", func(b *testing.B) {
		for b.Loop() {
			_ = secp256k1.PrivKeyFromBytes(scalars[0][:]).PubKey().SerializeUncompressed()
		}
	})
	b.Run("impl=default", func(b *testing.B) {
		PublicKeyOne(Secp256k1, &scalars[0]) // the tables, once
		for b.Loop() {
			if _, err := PublicKeyOne(Secp256k1, &scalars[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
