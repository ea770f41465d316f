package hpke

import (
	"bytes"
	stdhpke "crypto/hpke"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/internal/x25519x8"
)

// hybridVector is a base-mode MLKEM768-X25519 vector of Go's
// crypto/hpke testdata (hpke-pq.json, from draft-ietf-hpke-pq): ikmE is
// the ML-KEM encapsulation's randomness (32 bytes), then the X25519
// ephemeral private key.
type hybridVector struct {
	Mode        uint16 `json:"mode"`
	KEM         uint16 `json:"kem_id"`
	KDF         uint16 `json:"kdf_id"`
	AEAD        uint16 `json:"aead_id"`
	Info        string `json:"info"`
	IkmE        string `json:"ikmE"`
	PkRm        string `json:"pkRm"`
	Enc         string `json:"enc"`
	Secret      string `json:"shared_secret"`
	Encryptions []struct {
		AAD, CT, PT string
	} `json:"encryptions"`
}

func hybridVectors(t *testing.T) []hybridVector {
	t.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "crypto", "hpke", "testdata", "hpke-pq.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all, out []hybridVector
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	for _, v := range all {
		if v.Mode == 0 && v.KEM == KEMMLKEM768X25519 && v.KDF == KDFHKDFSHA256 {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		t.Fatal("no MLKEM768-X25519 vector with HKDF-SHA256")
	}
	return out
}

// derandomize makes every encapsulation use the randomness ikmE, until
// the test ends.
func derandomize(t *testing.T, ikmE []byte) {
	savedM, savedX := mlkemEncapsulate, x25519Ephemeral
	t.Cleanup(func() { mlkemEncapsulate, x25519Ephemeral = savedM, savedX })
	mlkemEncapsulate = func(ek *mlkem.EncapsulationKey768) ([]byte, []byte) {
		ss, ct, err := mlkemtest.Encapsulate768(ek, ikmE[:32])
		if err != nil {
			t.Fatal(err)
		}
		return ss, ct
	}
	x25519Ephemeral = func(k *[32]byte) { copy(k[:], ikmE[32:]) }
}

// TestHybridVectors reproduces draft-ietf-hpke-pq's MLKEM768-X25519
// vectors with the randomness they give: the encapsulated key and shared
// secret of HybridEncap and of every lane of HybridEncapFresh for every
// batch size, and the first encryption of the key schedule.
func TestHybridVectors(t *testing.T) {
	for _, v := range hybridVectors(t) {
		derandomize(t, unhex(t, v.IkmE))
		pk, err := NewHybridPublicKey(unhex(t, v.PkRm))
		if err != nil {
			t.Fatal(err)
		}
		enc, ss, err := HybridEncap(pk)
		if err != nil || !bytes.Equal(enc, unhex(t, v.Enc)) || !bytes.Equal(ss, unhex(t, v.Secret)) {
			t.Fatalf("HybridEncap: enc %x…, secret %x, %v; want %s…, %s", enc[:16], ss, err, v.Enc[:32], v.Secret)
		}
		for n := 1; n <= MaxBatch; n++ {
			pks := make([]*HybridPublicKey, n)
			for i := range pks {
				pks[i] = pk
			}
			encs, sss, errs := HybridEncapFresh(pks)
			for i := range n {
				if errs != nil || !bytes.Equal(encs[i], unhex(t, v.Enc)) || !bytes.Equal(sss[i], unhex(t, v.Secret)) {
					t.Fatalf("HybridEncapFresh, %d lanes (batches=%v), lane %d: secret %x, %v", n, HybridBatches(), i, sss[i], errs)
				}
			}
		}
		suite, err := NewHybridSuite(v.AEAD)
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := suite.NewContext(ss, suite.ScheduleContext(unhex(t, v.Info)))
		if err != nil {
			t.Fatal(err)
		}
		e := v.Encryptions[0]
		if ct, err := ctx.Seal(nil, unhex(t, e.AAD), unhex(t, e.PT)); err != nil || !bytes.Equal(ct, unhex(t, e.CT)) {
			t.Fatalf("AEAD %04x: first ciphertext %x, want %s (%v)", v.AEAD, ct, e.CT, err)
		}
	}
}

// hybridKeys returns n crypto/hpke MLKEM768-X25519 key pairs, the X25519
// half of the public key at position bad (if in range) replaced by the
// low-order point 0.
func hybridKeys(t *testing.T, n, bad int) ([]stdhpke.PrivateKey, []*HybridPublicKey) {
	t.Helper()
	sks := make([]stdhpke.PrivateKey, n)
	pks := make([]*HybridPublicKey, n)
	for i := range n {
		var err error
		if sks[i], err = stdhpke.MLKEM768X25519().GenerateKey(); err != nil {
			t.Fatal(err)
		}
		raw := bytes.Clone(sks[i].PublicKey().Bytes())
		if i == bad {
			clear(raw[mlkem.EncapsulationKeySize768:])
		}
		if pks[i], err = NewHybridPublicKey(raw); err != nil {
			t.Fatal(err)
		}
	}
	return sks, pks
}

// TestHybridEncapFresh opens what every lane of HybridEncapFresh
// encapsulates with crypto/hpke, for every batch size, with a low-order
// X25519 half in one lane: that lane alone fails, as crypto/hpke's
// NewSender fails for it.
func TestHybridEncapFresh(t *testing.T) {
	suite, _ := NewHybridSuite(AEADAES256GCM)
	a, _ := stdhpke.NewAEAD(AEADAES256GCM)
	info := []byte("hybrid batch")
	for n := 1; n <= MaxBatch; n++ {
		t.Run(fmt.Sprintf("n=%d/batches=%v", n, HybridBatches()), func(t *testing.T) {
			bad := n / 2
			sks, pks := hybridKeys(t, n, bad)
			encs, ss, errs := HybridEncapFresh(pks)
			for i := range n {
				if i == bad {
					std, _ := stdhpke.MLKEM768X25519().NewPublicKey(pks[i].Bytes())
					_, _, stdErr := stdhpke.NewSender(std, stdhpke.HKDFSHA256(), a, info)
					if errs == nil || !errors.Is(errs[i], ErrInvalidKey) || encs[i] != nil || ss[i] != nil || stdErr == nil {
						t.Fatalf("low-order lane: %v (crypto/hpke: %v)", errs, stdErr)
					}
					continue
				}
				if errs != nil && errs[i] != nil {
					t.Fatalf("lane %d: %v", i, errs[i])
				}
				ctx, _ := suite.NewContext(ss[i], suite.ScheduleContext(info))
				ct, _ := ctx.Seal(nil, []byte("aad"), []byte("file key"))
				r, err := stdhpke.NewRecipient(encs[i], sks[i], stdhpke.HKDFSHA256(), a, info)
				if err != nil {
					t.Fatal(err)
				}
				if pt, err := r.Open([]byte("aad"), ct); err != nil || string(pt) != "file key" {
					t.Fatalf("lane %d: crypto/hpke Open = %q, %v", i, pt, err)
				}
			}
		})
	}
	_, pks := hybridKeys(t, 1, 0)
	if _, _, err := HybridEncap(pks[0]); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("HybridEncap of a low-order X25519 half: %v", err)
	}
}

// TestHybridPublicKey: NewHybridPublicKey accepts and refuses what
// crypto/hpke's NewPublicKey does.
func TestHybridPublicKey(t *testing.T) {
	sk, _ := stdhpke.MLKEM768X25519().GenerateKey()
	good := sk.PublicKey().Bytes()
	badPQ := bytes.Clone(good)
	for i := range 4 {
		badPQ[i] = 0xff // coefficients of 12 bits ≥ q
	}
	for name, b := range map[string][]byte{
		"good": good, "short": good[:len(good)-1], "long": append(bytes.Clone(good), 0),
		"empty": nil, "bad ML-KEM key": badPQ,
	} {
		_, stdErr := stdhpke.MLKEM768X25519().NewPublicKey(b)
		pk, err := NewHybridPublicKey(b)
		if (err == nil) != (stdErr == nil) || err != nil && !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: %v, crypto/hpke says %v", name, err, stdErr)
		}
		if err == nil && !bytes.Equal(pk.Bytes(), b) {
			t.Errorf("%s: Bytes differ", name)
		}
	}
}

// BenchmarkHybridEncap is eight MLKEM768-X25519 encapsulations:
// HybridEncapFresh (impl=batch) against eight HybridEncap (impl=single)
// and eight crypto/hpke NewSender (impl=hpke, the key schedule included).
func BenchmarkHybridEncap(b *testing.B) {
	sk, _ := stdhpke.MLKEM768X25519().GenerateKey()
	pk, _ := NewHybridPublicKey(sk.PublicKey().Bytes())
	pks := make([]*HybridPublicKey, MaxBatch)
	for i := range pks {
		pks[i] = pk
	}
	b.Run(fmt.Sprintf("impl=batch/n=%d", MaxBatch), func(b *testing.B) {
		if !x25519x8.Accelerated() {
			b.Skip("no AVX-512 IFMA")
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, _, errs := HybridEncapFresh(pks); errs != nil {
				b.Fatal(errs)
			}
		}
	})
	b.Run(fmt.Sprintf("impl=single/n=%d", MaxBatch), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, pk := range pks {
				if _, _, err := HybridEncap(pk); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run(fmt.Sprintf("impl=hpke/n=%d", MaxBatch), func(b *testing.B) {
		a, _ := stdhpke.NewAEAD(AEADAES256GCM)
		b.ReportAllocs()
		for b.Loop() {
			for range pks {
				if _, _, err := stdhpke.NewSender(sk.PublicKey(), stdhpke.HKDFSHA256(), a, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
