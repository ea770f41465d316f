package hpke

import (
	"bytes"
	"crypto/ecdh"
	stdhpke "crypto/hpke"
	"errors"
	"fmt"
	"testing"
)

// batchKeys returns n recipient key pairs of kem, the key at position bad
// (if in range) replaced by the low-order point 0 for X25519.
func batchKeys(t *testing.T, kem *KEM, n, bad int) ([]*PrivateKey, []*PublicKey) {
	t.Helper()
	sks := make([]*PrivateKey, n)
	pks := make([]*PublicKey, n)
	for i := range n {
		sks[i], _ = kem.GenerateKey()
		raw := sks[i].PublicKey()
		if i == bad {
			raw = make([]byte, 32)
		}
		var err error
		if pks[i], err = kem.NewPublicKey(raw); err != nil {
			t.Fatal(err)
		}
	}
	return sks, pks
}

var batchKEMs = []*KEM{X25519(), P256(), Secp256k1()}

// TestEncapShared compares each batched shared secret with Decap by the
// recipient, for every batch size, and checks that a low-order key fails
// alone, at its index.
func TestEncapShared(t *testing.T) {
	for _, kem := range batchKEMs {
		for n := 1; n <= MaxBatch; n++ {
			t.Run(fmt.Sprintf("kem=%04x/n=%d/batches=%v", kem.ID(), n, kem.Batches()), func(t *testing.T) {
				bad := -1
				if kem == X25519() {
					bad = n / 2
				}
				sks, pks := batchKeys(t, kem, n, bad)
				eph, _ := kem.GenerateKey()
				ss, errs := kem.EncapShared(eph, pks)
				for i := range n {
					if i == bad {
						if errs == nil || !errors.Is(errs[i], ErrInvalidKey) || ss[i] != nil {
							t.Fatalf("low-order key %d: error %v", i, errs)
						}
						continue
					}
					if errs != nil && errs[i] != nil {
						t.Fatalf("key %d: %v", i, errs[i])
					}
					want, err := kem.Decap(eph.PublicKey(), sks[i])
					if err != nil || !bytes.Equal(ss[i], want) {
						t.Fatalf("key %d: shared secret %x, Decap says %x (%v)", i, ss[i], want, err)
					}
				}
			})
		}
	}
}

// TestEncapFresh opens a context made from each batched secret with
// crypto/hpke, from the encapsulated key alone.
func TestEncapFresh(t *testing.T) {
	curves := map[*KEM]ecdh.Curve{X25519(): ecdh.X25519(), P256(): ecdh.P256()}
	for kem, curve := range curves {
		for n := 1; n <= MaxBatch; n++ {
			t.Run(fmt.Sprintf("kem=%04x/n=%d/batches=%v", kem.ID(), n, kem.Batches()), func(t *testing.T) {
				bad := -1
				if kem == X25519() {
					bad = n - 1
				}
				sks, pks := batchKeys(t, kem, n, bad)
				encs, ss, errs := kem.EncapFresh(pks)
				suite, _ := NewSuite(kem, AEADAES256GCM)
				info := []byte("batch")
				seen := map[string]bool{}
				for i := range n {
					if i == bad {
						if errs == nil || !errors.Is(errs[i], ErrInvalidKey) {
							t.Fatalf("low-order key %d: error %v", i, errs)
						}
						continue
					}
					if errs != nil && errs[i] != nil {
						t.Fatalf("key %d: %v", i, errs[i])
					}
					if seen[string(encs[i])] {
						t.Fatalf("ephemeral key %x used twice", encs[i])
					}
					seen[string(encs[i])] = true
					ctx, _ := suite.NewContext(ss[i], suite.ScheduleContext(info))
					ct, _ := ctx.Seal(nil, []byte("aad"), []byte("file key"))
					priv, _ := curve.NewPrivateKey(sks[i].Bytes())
					sk, _ := stdhpke.NewDHKEMPrivateKey(priv)
					a, _ := stdhpke.NewAEAD(AEADAES256GCM)
					r, err := stdhpke.NewRecipient(encs[i], sk, stdhpke.HKDFSHA256(), a, info)
					if err != nil {
						t.Fatal(err)
					}
					if pt, err := r.Open([]byte("aad"), ct); err != nil || string(pt) != "file key" {
						t.Fatalf("key %d: crypto/hpke Open = %q, %v", i, pt, err)
					}
				}
			})
		}
	}
}

func TestDHBatch(t *testing.T) {
	for _, kem := range batchKEMs {
		t.Run(fmt.Sprintf("kem=%04x", kem.ID()), func(t *testing.T) {
			bad := -1
			if kem == X25519() {
				bad = 0
			}
			_, pks := batchKeys(t, kem, MaxBatch, bad)
			sk, _ := kem.GenerateKey()
			dh, errs := kem.DHBatch(sk, pks)
			for i, pk := range pks {
				want, err := kem.DH(sk, pk)
				if i == bad {
					if err == nil || errs == nil || !errors.Is(errs[i], ErrInvalidKey) {
						t.Fatalf("low-order key: batch error %v, DH error %v", errs, err)
					}
					continue
				}
				if err != nil || (errs != nil && errs[i] != nil) || !bytes.Equal(dh[i], want) {
					t.Fatalf("key %d: %x, DH says %x (%v)", i, dh[i], want, err)
				}
			}
		})
	}
}

func TestBatchMisuse(t *testing.T) {
	x, p := X25519(), P256()
	skP, _ := p.GenerateKey()
	_, pksX := batchKeys(t, x, MaxBatch+1, -1)
	for name, f := range map[string]func(){
		"too many":      func() { x.EncapFresh(pksX) },
		"wrong private": func() { x.DHBatch(skP, pksX[:1]) },
		"wrong public":  func() { p.DHBatch(skP, pksX[:1]) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
