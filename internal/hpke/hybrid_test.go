package hpke

import (
	"bytes"
	"crypto/fips140"
	stdhpke "crypto/hpke"
	"crypto/mlkem"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/fanseal/fanseal/internal/mlkem768"
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
	SkRm        string `json:"skRm"`
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
	mlkemEncapsulate = func(ek *mlkem768.EncapsulationKey) ([]byte, []byte) {
		ss, ct, err := ek.EncapsulateDerand(ikmE[:32])
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
			if !HybridBatches() {
				continue
			}
			// The halves apart: the ML-KEM-768 half before the pass, the
			// lanes finished last to first.
			ssPQ, ctPQ := pk.EncapsulatePQ()
			var h HybridHalves
			h.Compute(pks)
			for i := n - 1; i >= 0; i-- {
				enc, ss, err := h.Finish(i, pk, ssPQ, ctPQ)
				if err != nil || !bytes.Equal(enc, unhex(t, v.Enc)) || !bytes.Equal(ss, unhex(t, v.Secret)) {
					t.Fatalf("HybridHalves, %d lanes, lane %d: secret %x, %v", n, i, ss, err)
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

// TestHybridDecapVectors: the vectors' private key expands to their public
// key, and HybridDecap of their encapsulated key gives their secret.
func TestHybridDecapVectors(t *testing.T) {
	for _, v := range hybridVectors(t) {
		sk, err := NewHybridPrivateKey(unhex(t, v.SkRm))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(sk.PublicKey().Bytes(), unhex(t, v.PkRm)) {
			t.Fatal("NewHybridPrivateKey: public key differs from pkRm")
		}
		ss, err := HybridDecap(unhex(t, v.Enc), sk)
		if err != nil || !bytes.Equal(ss, unhex(t, v.Secret)) {
			t.Fatalf("HybridDecap: %x, %v; want %s", ss, err, v.Secret)
		}
	}
}

// TestHybridDecapStdlib holds NewHybridPrivateKey and HybridDecap to
// crypto/hpke's MLKEM768-X25519 on random seeds: the same public key, and
// for valid, corrupted (ML-KEM half, X25519 half) and random encapsulated
// keys the same verdict and the same secret (compared through the key
// schedule's exporter), low-order X25519 halves refused by both, wrong
// lengths too.
func TestHybridDecapStdlib(t *testing.T) {
	suite, _ := NewHybridSuite(AEADExportOnly)
	exportOnly, _ := stdhpke.NewAEAD(AEADExportOnly)
	info := []byte("hybrid decap")
	sched := suite.ScheduleContext(info)
	n := 200
	if testing.Short() {
		n = 20
	}
	for i := range n {
		seed := make([]byte, HybridSeedSize)
		rand.Read(seed)
		std, err := stdhpke.MLKEM768X25519().NewPrivateKey(seed)
		if err != nil {
			t.Fatal(err)
		}
		sk, err := NewHybridPrivateKey(seed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(sk.PublicKey().Bytes(), std.PublicKey().Bytes()) {
			t.Fatalf("seed %x: public keys differ", seed)
		}
		enc, _, err := HybridEncap(sk.PublicKey())
		if err != nil {
			t.Fatal(err)
		}
		cases := map[string][]byte{"valid": enc}
		flip := func(j int) []byte { e := bytes.Clone(enc); e[j] ^= 1 << (i % 8); return e }
		cases["ML-KEM bit"] = flip(i % mlkem768.CiphertextSize)
		cases["X25519 bit"] = flip(mlkem768.CiphertextSize + i%32)
		random := make([]byte, HybridEncSize)
		rand.Read(random)
		cases["random"] = random
		lowOrder := bytes.Clone(enc)
		clear(lowOrder[mlkem768.CiphertextSize:])
		cases["low-order X25519"] = lowOrder
		cases["short"] = enc[:len(enc)-1]
		cases["long"] = append(bytes.Clone(enc), 0)
		for name, e := range cases {
			r, stdErr := stdhpke.NewRecipient(e, std, stdhpke.HKDFSHA256(), exportOnly, info)
			ss, err := HybridDecap(e, sk)
			if (err == nil) != (stdErr == nil) {
				t.Fatalf("%s: HybridDecap %v, crypto/hpke %v", name, err, stdErr)
			}
			if err != nil {
				continue
			}
			ctx, err := suite.NewContext(ss, sched)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := ctx.Export([]byte("x"), 32)
			want, _ := r.Export("x", 32)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: secrets differ", name)
			}
		}
	}
	if _, err := NewHybridPrivateKey(make([]byte, 31)); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("31-byte seed: %v", err)
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

// TestHybridHalves finishes each lane of HybridHalves on a goroutine of
// its own, its ML-KEM-768 half encapsulated there first, and opens each
// with crypto/hpke; the low-order lane alone fails. Finish clears each
// lane's agreement.
func TestHybridHalves(t *testing.T) {
	if !HybridBatches() {
		t.Skip("HybridHalves needs AVX-512 IFMA")
	}
	suite, _ := NewHybridSuite(AEADAES256GCM)
	a, _ := stdhpke.NewAEAD(AEADAES256GCM)
	info := []byte("hybrid halves")
	const bad = 5
	sks, pks := hybridKeys(t, MaxBatch, bad)
	var h HybridHalves
	h.Compute(pks)
	encs, ss, errs := make([][]byte, MaxBatch), make([][]byte, MaxBatch), make([]error, MaxBatch)
	var wg sync.WaitGroup
	for i := range MaxBatch {
		wg.Go(func() {
			ssPQ, ctPQ := pks[i].EncapsulatePQ()
			encs[i], ss[i], errs[i] = h.Finish(i, pks[i], ssPQ, ctPQ)
		})
	}
	wg.Wait()
	// A lane cannot be finished with another key, or past the lanes
	// computed, or with a malformed ML-KEM-768 half.
	ssPQ, ctPQ := pks[0].EncapsulatePQ()
	for name, f := range map[string]func(){
		"another key":      func() { h.Finish(0, pks[1], ssPQ, ctPQ) },
		"lane 8":           func() { h.Finish(MaxBatch, pks[0], ssPQ, ctPQ) },
		"no ciphertext":    func() { h.Finish(0, pks[0], ssPQ, nil) },
		"short secret":     func() { h.Finish(0, pks[0], ssPQ[:31], ctPQ) },
		"short ciphertext": func() { h.Finish(0, pks[0], ssPQ, ctPQ[:100]) },
	} {
		if !panics(f) {
			t.Errorf("Finish with %s did not panic", name)
		}
	}
	for i := range MaxBatch {
		if h.dh[i] != [32]byte{} {
			t.Errorf("lane %d: agreement not cleared", i)
		}
		if i == bad {
			if !errors.Is(errs[i], ErrInvalidKey) || encs[i] != nil || ss[i] != nil {
				t.Errorf("low-order lane: %x, %v", encs[i], errs[i])
			}
			continue
		}
		if errs[i] != nil {
			t.Fatalf("lane %d: %v", i, errs[i])
		}
		ctx, _ := suite.NewContext(ss[i], suite.ScheduleContext(info))
		ct, _ := ctx.Seal(nil, nil, []byte("file key"))
		r, err := stdhpke.NewRecipient(encs[i], sks[i], stdhpke.HKDFSHA256(), a, info)
		if err != nil {
			t.Fatal(err)
		}
		if pt, err := r.Open(nil, ct); err != nil || string(pt) != "file key" {
			t.Fatalf("lane %d: crypto/hpke Open = %q, %v", i, pt, err)
		}
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

// BenchmarkHybridDecap is one MLKEM768-X25519 decapsulation: HybridDecap
// (impl=fanseal, internal/mlkem768's ML-KEM) against crypto/hpke's
// NewRecipient (impl=hpke, the key schedule included).
func BenchmarkHybridDecap(b *testing.B) {
	seed := make([]byte, HybridSeedSize)
	rand.Read(seed)
	sk, _ := NewHybridPrivateKey(seed)
	std, _ := stdhpke.MLKEM768X25519().NewPrivateKey(seed)
	enc, _, _ := HybridEncap(sk.PublicKey())
	b.Run("impl=fanseal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := HybridDecap(enc, sk); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=hpke", func(b *testing.B) {
		a, _ := stdhpke.NewAEAD(AEADAES256GCM)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := stdhpke.NewRecipient(enc, std, stdhpke.HKDFSHA256(), a, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestHybridFIPSOnly: in FIPS 140-only mode (GODEBUG=fips140=only) the
// hybrid still seals and opens, its ML-KEM half crypto/mlkem's and its
// X25519 half run outside enforcement, as crypto/hpke runs it. Run
// otherwise, the test runs itself again in such a subprocess.
func TestHybridFIPSOnly(t *testing.T) {
	if !fips140.Enforced() {
		if os.Getenv("HPKE_FIPS_CHILD") != "" {
			t.Fatal("the child runs with GODEBUG=fips140=only, but FIPS 140-only mode is off")
		}
		if purego {
			t.Skip("FIPS 140-3 mode is incompatible with the purego build tag")
		}
		exe, err := os.Executable()
		if err != nil {
			t.Skip(err)
		}
		cmd := exec.Command(exe, "-test.run=^TestHybridFIPSOnly$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG=fips140=only", "HPKE_FIPS_CHILD=1")
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.ENOEXEC) {
			t.Skip("the test binary cannot run itself here (an emulated architecture without binfmt_misc)")
		}
		if err != nil || !strings.Contains(string(out), "FIPS 140-only: crypto/mlkem") {
			t.Fatalf("the FIPS 140-only child failed: %v\n%s", err, out)
		}
		return
	}
	if got := mlkem768.Implementation(); got != "crypto/mlkem" {
		t.Fatalf("FIPS 140-only mode runs %s", got)
	}
	seed := make([]byte, HybridSeedSize)
	rand.Read(seed)
	sk, err := NewHybridPrivateKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := NewHybridPublicKey(sk.PublicKey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	encs, sss, errs := HybridEncapFresh([]*HybridPublicKey{pk, pk})
	if errs != nil {
		t.Fatal(errs)
	}
	enc, ss, err := HybridEncap(pk)
	if err != nil {
		t.Fatal(err)
	}
	encs, sss = append(encs, enc), append(sss, ss)
	for i := range encs {
		if got, err := HybridDecap(encs[i], sk); err != nil || !bytes.Equal(got, sss[i]) {
			t.Fatalf("HybridDecap of encapsulation %d: %x, %v; want %x", i, got, err, sss[i])
		}
	}
	t.Logf("FIPS 140-only: %s", mlkem768.Implementation())
}

// TestHybridDecapBatch holds every lane of HybridDecapBatch, for every
// batch size, to HybridDecap: the same secret or the same error, for
// valid encapsulated keys, corrupted ML-KEM and X25519 halves, the
// low-order X25519 encodings (non-canonical ones included) and wrong
// lengths.
func TestHybridDecapBatch(t *testing.T) {
	seed := make([]byte, HybridSeedSize)
	rand.Read(seed)
	sk, _ := NewHybridPrivateKey(seed)
	variant := func(k int) []byte {
		enc, _, err := HybridEncap(sk.PublicKey())
		if err != nil {
			t.Fatal(err)
		}
		switch k % 6 {
		case 1:
			enc[k%mlkem768.CiphertextSize] ^= 1
		case 2:
			enc[mlkem768.CiphertextSize+k%32] ^= 0x80 // bit 255 too, which X25519 ignores
		case 3:
			copy(enc[mlkem768.CiphertextSize:], unhex(t, x25519LowOrder[k%len(x25519LowOrder)]))
		case 4:
			enc = enc[:len(enc)-1-k%2]
		}
		return enc
	}
	for n := 1; n <= MaxBatch; n++ {
		for round := range 6 {
			encs := make([][]byte, n)
			for i := range encs {
				encs[i] = variant(round*n + i)
			}
			ss, errs := HybridDecapBatch(sk, encs)
			for i, enc := range encs {
				want, wantErr := HybridDecap(enc, sk)
				var err error
				if errs != nil {
					err = errs[i]
				}
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || !bytes.Equal(ss[i], want) {
					t.Fatalf("n=%d, lane %d (batches=%v): %x, %v; HybridDecap: %x, %v", n, i, HybridBatches(), ss[i], err, want, wantErr)
				}
			}
		}
	}
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}
