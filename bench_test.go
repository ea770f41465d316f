package fanseal

import (
	"bytes"
	"crypto/ecdh"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"fmt"
	"io"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

var benchSuites = []Suite{P256, X25519, Secp256k1, MLKEM768X25519}

// BenchmarkSeal seals a 32-byte session key, the synchronizer's case.
func BenchmarkSeal(b *testing.B) {
	key := make([]byte, 32)
	for _, s := range benchSuites {
		_, rs := identities(b, s, 100)
		for _, st := range Strategies {
			for _, n := range []int{1, 2, 5, 10, 20, 100} {
				b.Run(fmt.Sprintf("suite=%s/strategy=%s/n=%d", s, st, n), func(b *testing.B) {
					sealer := &Sealer{Strategy: st}
					b.ReportAllocs()
					for b.Loop() {
						if _, err := sealer.SealBytes(key, rs[:n]...); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkFloor is the physical floor of one classical stanza: one
// ephemeral key generation and one ECDH with an already parsed public key,
// straight on the curve library. For the hybrid it is one crypto/hpke
// encapsulation.
func BenchmarkFloor(b *testing.B) {
	for _, s := range benchSuites {
		b.Run("suite="+s.String(), func(b *testing.B) {
			b.ReportAllocs()
			switch s {
			case P256, X25519:
				c := ecdh.P256()
				if s == X25519 {
					c = ecdh.X25519()
				}
				peer, _ := c.GenerateKey(rand.Reader)
				pub := peer.PublicKey()
				for b.Loop() {
					eph, _ := c.GenerateKey(rand.Reader)
					if _, err := eph.ECDH(pub); err != nil {
						b.Fatal(err)
					}
				}
			case Secp256k1:
				peer, _ := secp256k1.GeneratePrivateKey()
				pub := peer.PubKey()
				for b.Loop() {
					eph, _ := secp256k1.GeneratePrivateKey()
					secp256k1.GenerateSharedSecret(eph, pub)
				}
			case MLKEM768X25519:
				k, _ := stdhpke.MLKEM768X25519().GenerateKey()
				pub := k.PublicKey()
				for b.Loop() {
					if _, _, err := stdhpke.NewSender(pub, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), nil); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkOpen opens a 32-byte payload as the last of n recipients.
func BenchmarkOpen(b *testing.B) {
	for _, s := range benchSuites {
		for _, n := range []int{2, 100, 1000} {
			ids, rs := identities(b, s, n)
			env, err := SealBytes(make([]byte, 32), rs...)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("suite=%s/n=%d", s, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := OpenBytes(env, ids[n-1]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkStream measures the payload path through the streaming API.
func BenchmarkStream(b *testing.B) {
	ids, rs := identities(b, X25519, 1)
	for _, size := range []struct {
		name string
		n    int
	}{{"64KiB", 64 << 10}, {"16MiB", 16 << 20}} {
		pt := randomBytes(size.n)
		b.Run("op=seal/size="+size.name, func(b *testing.B) {
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				w, err := Seal(io.Discard, rs...)
				if err != nil {
					b.Fatal(err)
				}
				w.Write(pt)
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
		env, _ := SealBytes(pt, rs...)
		b.Run("op=open/size="+size.name, func(b *testing.B) {
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				r, err := Open(bytes.NewReader(env), ids[0])
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
