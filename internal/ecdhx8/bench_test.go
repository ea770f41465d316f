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

// benchCounts are the lane counts of the benchmarks: one lane, one AVX2
// pass, one IFMA pass (two AVX2 passes).
var benchCounts = []int{1, 4, 8}

// vecEngines are the vector engines this CPU has.
func vecEngines() []engineID {
	var es []engineID
	for _, e := range availableEngines() {
		if e != engineGeneric {
			es = append(es, e)
		}
	}
	return es
}

// BenchmarkECDH is the cost of n key agreements with peer public keys as
// they arrive on the wire, per engine: engine=avx512ifma and engine=avx2,
// one ECDH call on that engine (the points parsed, and for secp256k1
// decompressed, in the pass; engines the CPU lacks are left out);
// engine=generic, the portable path of this package (P-256: NewPrivateKey,
// which computes the public key too, then the agreement); and the
// baselines one at a time: engine=ecdh (P-256), n crypto/ecdh agreements,
// the private keys already parsed (ecdh.PrivateKey, as a caller keeps
// them), each peer key parsed by ecdh.P256().NewPublicKey in the loop, as
// opening a message must; engine=k256 (secp256k1), n agreements of
// internal/k256 (decred's ParsePubKey on the compressed key, then
// k256.ECDH: the portable path's); engine=decred (secp256k1), ParsePubKey
// then GenerateSharedSecret (ScalarMultNonConst, variable time: what kex
// did before ECDHOne). PassCost is engine=avx2's or engine=avx512ifma's
// n=PassLanes time over engine=ecdh's or engine=k256's n=1 time.
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
		for _, n := range benchCounts {
			for _, e := range append(vecEngines(), engineGeneric) {
				b.Run(fmt.Sprintf("curve=%s/engine=%s/n=%d", curveKey(c), e, n), func(b *testing.B) {
					var dst [Lanes][32]byte
					for b.Loop() {
						if errs := ecdhOn(e, c, &dst, &scalars, &points, n); errs[0] != nil {
							b.Fatal(errs[0])
						}
					}
					perOp(b, n)
				})
			}
			if c == P256 {
				b.Run(fmt.Sprintf("curve=%s/engine=ecdh/n=%d", curveKey(c), n), func(b *testing.B) {
					for b.Loop() {
						for i := range n {
							pub, err := ecdh.P256().NewPublicKey(points[i])
							if err != nil {
								b.Fatal(err)
							}
							if _, err := privs[i].ECDH(pub); err != nil {
								b.Fatal(err)
							}
						}
					}
					perOp(b, n)
				})
				continue
			}
			b.Run(fmt.Sprintf("curve=%s/engine=k256/n=%d", curveKey(c), n), func(b *testing.B) {
				for b.Loop() {
					for i := range n {
						if _, err := ecdhPortable(Secp256k1, &scalars[i], points[i]); err != nil {
							b.Fatal(err)
						}
					}
				}
				perOp(b, n)
			})
			b.Run(fmt.Sprintf("curve=%s/engine=decred/n=%d", curveKey(c), n), func(b *testing.B) {
				for b.Loop() {
					for i := range n {
						pub, err := secp256k1.ParsePubKey(points[i])
						if err != nil {
							b.Fatal(err)
						}
						secp256k1.GenerateSharedSecret(secps[i], pub)
					}
				}
				perOp(b, n)
			})
		}
	}
}

// BenchmarkPublicKeys is key generation from given scalars: one
// PublicKeys call per vector engine (the fixed-base comb; engine=generic,
// the portable path) against n ecdh.P256().NewPrivateKey(k).PublicKey()
// (engine=ecdh), n internal/k256 public keys (engine=k256, the portable
// path's) or n decred PrivKeyFromBytes(k).PubKey() (ScalarBaseMultNonConst,
// variable time) serialized uncompressed (engine=decred).
func BenchmarkPublicKeys(b *testing.B) {
	for _, c := range curves {
		scalars, _ := benchKeys(b, c)
		for _, n := range benchCounts {
			for _, e := range append(vecEngines(), engineGeneric) {
				b.Run(fmt.Sprintf("curve=%s/engine=%s/n=%d", curveKey(c), e, n), func(b *testing.B) {
					var dst [Lanes][65]byte
					publicKeysOn(e, c, &dst, &scalars, n) // the tables, once
					for b.Loop() {
						publicKeysOn(e, c, &dst, &scalars, n)
					}
					perOp(b, n)
				})
			}
			if c == P256 {
				b.Run(fmt.Sprintf("curve=%s/engine=ecdh/n=%d", curveKey(c), n), func(b *testing.B) {
					for b.Loop() {
						for i := range n {
							k, err := ecdh.P256().NewPrivateKey(scalars[i][:])
							if err != nil {
								b.Fatal(err)
							}
							_ = k.PublicKey().Bytes()
						}
					}
					perOp(b, n)
				})
				continue
			}
			b.Run(fmt.Sprintf("curve=%s/engine=k256/n=%d", curveKey(c), n), func(b *testing.B) {
				publicKeyPortable(Secp256k1, &scalars[0]) // the tables, once
				for b.Loop() {
					for i := range n {
						publicKeyPortable(Secp256k1, &scalars[i])
					}
				}
				perOp(b, n)
			})
			b.Run(fmt.Sprintf("curve=%s/engine=decred/n=%d", curveKey(c), n), func(b *testing.B) {
				for b.Loop() {
					for i := range n {
						_ = secp256k1.PrivKeyFromBytes(scalars[i][:]).PubKey().SerializeUncompressed()
					}
				}
				perOp(b, n)
			})
		}
	}
}

// BenchmarkParsePoints is the validation of peer keys (P-256
// uncompressed; secp256k1 compressed, decompressed): one ParsePoints call
// per vector engine (engine=generic, the portable path) against n
// ecdh.P256().NewPublicKey (engine=ecdh) or n decred ParsePubKey calls
// (engine=decred, the portable path's parser).
func BenchmarkParsePoints(b *testing.B) {
	for _, c := range curves {
		_, points := benchKeys(b, c)
		for _, n := range benchCounts {
			for _, e := range append(vecEngines(), engineGeneric) {
				b.Run(fmt.Sprintf("curve=%s/engine=%s/n=%d", curveKey(c), e, n), func(b *testing.B) {
					var dst [Lanes][65]byte
					for b.Loop() {
						parsePointsOn(e, c, &dst, &points, n)
					}
					perOp(b, n)
				})
			}
			ref := "ecdh"
			if c == Secp256k1 {
				ref = "decred"
			}
			b.Run(fmt.Sprintf("curve=%s/engine=%s/n=%d", curveKey(c), ref, n), func(b *testing.B) {
				for b.Loop() {
					for i := range n {
						var err error
						if c == P256 {
							_, err = ecdh.P256().NewPublicKey(points[i])
						} else {
							_, err = secp256k1.ParsePubKey(points[i])
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
				perOp(b, n)
			})
		}
	}
}

// BenchmarkSecp256k1Agree is one secp256k1 agreement with a compressed
// peer key, as an open or a kex channel computes it: impl=avx512ifma-1lane
// and impl=avx2-1lane, an ECDH pass with one lane on each vector engine the
// CPU has; impl=portable,
// the constant-time portable path (decred's ParsePubKey, then
// internal/k256's ECDH, or under purego secp256k1-voi's ScalarMult); impl=decred, ParsePubKey and
// GenerateSharedSecret (ScalarMultNonConst, variable time: what fanseal
// used before); impl=default, ECDHOne, whichever of the constant-time
// paths this build and CPU use.
func BenchmarkSecp256k1Agree(b *testing.B) {
	scalars, points := benchKeys(b, Secp256k1)
	for _, e := range vecEngines() {
		b.Run("impl="+e.String()+"-1lane", func(b *testing.B) {
			var dst [Lanes][32]byte
			for b.Loop() {
				if errs := ecdhOn(e, Secp256k1, &dst, &scalars, &points, 1); errs[0] != nil {
					b.Fatal(errs[0])
				}
			}
		})
	}
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
// scalar: impl=avx512ifma-1lane and impl=avx2-1lane, a PublicKeys pass
// with one lane on each vector engine the CPU has;
// impl=portable, internal/k256's PublicKey (under purego secp256k1-voi's
// ScalarBaseMult); impl=decred,
// PrivKeyFromBytes(k).PubKey() (ScalarBaseMultNonConst, variable time);
// impl=default, PublicKeyOne.
func BenchmarkSecp256k1PublicKey(b *testing.B) {
	scalars, _ := benchKeys(b, Secp256k1)
	for _, e := range vecEngines() {
		b.Run("impl="+e.String()+"-1lane", func(b *testing.B) {
			var dst [Lanes][65]byte
			publicKeysOn(e, Secp256k1, &dst, &scalars, 1) // the table, once
			for b.Loop() {
				publicKeysOn(e, Secp256k1, &dst, &scalars, 1)
			}
		})
	}
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
