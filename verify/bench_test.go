package verify

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"fmt"
	"math/big"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	secpecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"github.com/hdevalence/ed25519consensus"
)

// BenchmarkEd25519 compares checking n signatures with crypto/ed25519 in a
// loop (the baseline), with ZIP-215 single verification in a loop, and with
// Verify (batches, split across GOMAXPROCS cores). The 1.8× target is
// mode=batch against mode=stdlib at -cpu 1. cpu-ns/op is the process's CPU
// time per operation, which a busy shared machine disturbs far less than
// the wall time.
func BenchmarkEd25519(b *testing.B) {
	for _, n := range []int{8, 64, 256} {
		items := honest(b, n)
		for _, single := range []struct {
			mode   string
			verify func(ed25519.PublicKey, []byte, []byte) bool
		}{{"stdlib", ed25519.Verify}, {"zip215", ed25519consensus.Verify}} {
			b.Run(fmt.Sprintf("n=%d/mode=%s", n, single.mode), func(b *testing.B) {
				cpu := cpuTime()
				for b.Loop() {
					for _, it := range items {
						if !single.verify(it.PublicKey, it.Message, it.Signature) {
							b.Fatal("rejected")
						}
					}
				}
				reportCPU(b, cpu)
			})
		}
		b.Run(fmt.Sprintf("n=%d/mode=batch", n), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				for _, err := range Verify(items) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkEd25519Blame measures finding bad signatures in a batch of 64:
// bad=1 against bad=0 is the cost of blame (target ≤ 2.5×); bad=64 is the
// worst case, every signature forged. The bad items move through every
// position, so the figure is the average over them.
func BenchmarkEd25519Blame(b *testing.B) {
	const n = 64
	items := honest(b, n)
	for _, nbad := range []int{0, 1, 2, n} {
		b.Run(fmt.Sprintf("n=%d/bad=%d", n, nbad), func(b *testing.B) {
			pos, cpu := 0, cpuTime()
			for b.Loop() {
				saved := make([]Item, nbad)
				for j := range nbad {
					at := (pos + j*n/nbad) % n
					saved[j] = items[at]
					items[at].Message = []byte("forged")
				}
				errs := Verify(items)
				for j := range nbad {
					at := (pos + j*n/nbad) % n
					if errs[at] == nil {
						b.Fatal("bad item accepted")
					}
					items[at] = saved[j]
				}
				pos = (pos + 1) % n
			}
			reportCPU(b, cpu)
		})
	}
}

// loopCheck is what a caller writes without this package: parse, hash and
// verify each item in turn, with the schemes' own packages.
func loopCheck(it Item) bool {
	h := sha256.Sum256(it.Message)
	switch it.Scheme {
	case P256, P256Fixed:
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), it.PublicKey)
		if err != nil {
			return false
		}
		if it.Scheme == P256Fixed {
			r, s := new(big.Int).SetBytes(it.Signature[:32]), new(big.Int).SetBytes(it.Signature[32:])
			return ecdsa.Verify(pub, h[:], r, s)
		}
		return ecdsa.VerifyASN1(pub, h[:], it.Signature)
	case Secp256k1:
		pub, err := secp256k1.ParsePubKey(it.PublicKey)
		if err != nil {
			return false
		}
		sig, err := secpecdsa.ParseDERSignature(it.Signature)
		return err == nil && sig.Verify(h[:], pub)
	case BIP340:
		pub, err := schnorr.ParsePubKey(it.PublicKey)
		if err != nil {
			return false
		}
		sig, err := schnorr.ParseSignature(it.Signature)
		return err == nil && sig.Verify(it.Message, pub)
	}
	return false
}

// BenchmarkParallel compares checking n signatures of one scheme in a loop
// (the baseline) with Verify's sliding window over GOMAXPROCS goroutines.
// The 1.7× target is scheme=p256-asn1, n=100, at -cpu 2.
func BenchmarkParallel(b *testing.B) {
	const n = 100
	all := mixed(b, n)
	for _, s := range []Scheme{P256, P256Fixed, Secp256k1, BIP340} {
		var items []Item
		for _, it := range all {
			if it.Scheme == s {
				items = append(items, it)
			}
		}
		b.Run(fmt.Sprintf("scheme=%s/n=%d/mode=loop", s, n), func(b *testing.B) {
			for b.Loop() {
				for _, it := range items {
					if !loopCheck(it) {
						b.Fatal("rejected")
					}
				}
			}
		})
		b.Run(fmt.Sprintf("scheme=%s/n=%d/mode=parallel", s, n), func(b *testing.B) {
			for b.Loop() {
				for _, err := range Verify(items) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
