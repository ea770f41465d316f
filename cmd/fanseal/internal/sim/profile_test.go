package sim

import (
	"context"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestIsCrypto(t *testing.T) {
	for fn, want := range map[string]bool{
		"crypto/internal/fips140/aes/gcm.gcmAesEnc":                                true,
		"crypto/ecdh.(*PrivateKey).ECDH":                                           true,
		"vendor/golang.org/x/crypto/chacha20poly1305.(*chacha20poly1305).seal":     true,
		"golang.org/x/crypto/nacl/secretbox.Seal":                                  true,
		"github.com/decred/dcrd/dcrec/secp256k1/v4.(*FieldVal).Mul":                true,
		"filippo.io/edwards25519/field.feMul":                                      true,
		"gitlab.com/yawning/secp256k1-voi.(*Point).ScalarMult":                     true,
		"gitlab.com/yawning/secp256k1-voi/internal/field.(*Element).Multiply":      true,
		"github.com/fanseal/fanseal.(*Sealer).header":                              true,
		"github.com/fanseal/fanseal/lthash.(*Hash16).Add":                          true,
		"github.com/fanseal/fanseal/internal/ecdhx8.scalarMultK256":                true,
		"github.com/fanseal/fanseal/internal/x25519x8.ladder":                      true,
		"github.com/fanseal/fanseal/internal/format.ParseHeader":                   false,
		"github.com/fanseal/fanseal/cmd/fanseal/internal/sim.(*ledgerWorld).write": false,
		"github.com/fanseal/fanseal/drain.(*Sender[...]).run":                      false,
		"runtime.mallocgc":           false,
		"internal/chacha8rand.block": false,
		"cryptography/fake.F":        false,
	} {
		if isCrypto(fn, "") != want {
			t.Errorf("isCrypto(%q) = %v", fn, !want)
		}
	}
	if !isCrypto("_expand_key_128", "/usr/local/go/src/crypto/internal/fips140/aes/asm_amd64.s") || isCrypto("_rt0", "/usr/local/go/src/runtime/asm_amd64.s") {
		t.Error("assembly symbols are judged by their file")
	}
}

func TestRules(t *testing.T) {
	stack := []stackFrame{{fn: "runtime.asyncPreempt"}, {fn: "crypto/internal/fips140/aes/gcm.newGCM"}, {fn: "crypto/cipher.NewGCM"}, {fn: "main.main"}}
	if leaf, ok := leafFrame(stack); !ok || leaf.fn != "crypto/internal/fips140/aes/gcm.newGCM" {
		t.Fatalf("leaf %v", leaf)
	}
	rules := (&ledgerWorkload{}).rules()
	if rules[0].matches(stack) || !rules[1].matches(stack) {
		t.Fatal("key setup counted as seal/open, or not as key setup")
	}
	seal := []stackFrame{{fn: "crypto/internal/fips140/aes/gcm.gcmAesEnc"}, {fn: "crypto/internal/fips140/aes/gcm.(*GCM).Seal"}}
	if !rules[0].matches(seal) || rules[1].matches(seal) {
		t.Fatal("seal not counted as seal")
	}
}

func TestParseProfileErrors(t *testing.T) {
	if _, err := parseProfile([]byte("not gzip")); !errors.Is(err, errProfile) {
		t.Fatal(err)
	}
	// A gzip stream of a truncated message.
	p, err := startProfile()
	if err != nil {
		t.Skip(err) // another profile runs: go test -cpuprofile
	}
	prof, err := p.stop()
	if err != nil || prof == nil {
		t.Fatal(err)
	}
	raw := p.buf.Bytes()
	if _, err := parseProfile(raw[:len(raw)/2]); err == nil {
		t.Fatal("truncated profile parsed")
	}
}

// TestAttribution profiles two labelled goroutines, one hashing and one
// sorting, and checks that the crypto share tells them apart.
func TestAttribution(t *testing.T) {
	p, err := startProfile()
	if err != nil {
		t.Skip(err)
	}
	var wg sync.WaitGroup
	deadline := time.Now().Add(400 * time.Millisecond)
	pprof.Do(context.Background(), pprof.Labels(sideLabel, "hash"), func(context.Context) {
		wg.Go(func() {
			b := make([]byte, 1<<16)
			for time.Now().Before(deadline) {
				sha256.Sum256(b)
			}
		})
	})
	pprof.Do(context.Background(), pprof.Labels(sideLabel, "sort"), func(context.Context) {
		wg.Go(func() {
			s := make([]int, 1<<12)
			for time.Now().Before(deadline) {
				for i := range s {
					s[i] = rand.Int()
				}
				slices.Sort(s)
			}
		})
	})
	wg.Wait()
	prof, err := p.stop()
	if err != nil {
		t.Fatal(err)
	}
	hash, sort := prof.attribute("hash", nil), prof.attribute("sort", nil)
	if hash.Seconds == 0 || sort.Seconds == 0 {
		t.Skip("too few samples")
	}
	if hash.Crypto < 0.7 || sort.Crypto > 0.3 {
		t.Fatalf("crypto share of hashing %.2f, of sorting %.2f", hash.Crypto, sort.Crypto)
	}
	if none := prof.attribute("nobody", nil); none.Seconds != 0 || none.Crypto != 0 {
		t.Fatalf("unlabelled side: %+v", none)
	}
}
