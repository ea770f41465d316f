package peers

import (
	"bytes"
	"context"
	"crypto/ecdh"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	circlhpke "github.com/cloudflare/circl/hpke"
	"github.com/cloudflare/circl/kem"
	"github.com/tink-crypto/tink-go/v2/hybrid"
	"github.com/tink-crypto/tink-go/v2/keyset"
	"github.com/tink-crypto/tink-go/v2/tink"
	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal"
)

var counts = []int{2, 5, 10, 20, 100}

var info = []byte("peers benchmark")

// A peer seals a 32-byte key for the first n of its recipients, and opens
// a sealed key as its last recipient.
type peer struct {
	name, suite string
	setup       func(b *testing.B, n int) (seal func() ([]byte, error), open func([]byte) error)
}

// preparers holds, by peer name, the untimed step to run before each seal
// (set by the peer's setup).
var preparers = map[string]func(){}

func peers() []peer {
	return []peer{
		{"age", "x25519", ageX25519},
		{"age", "mlkem768x25519", ageHybrid},
		{"hpke", "p256", loop(stdHPKE(stdhpke.DHKEM(ecdh.P256())))},
		{"hpke", "x25519", loop(stdHPKE(stdhpke.DHKEM(ecdh.X25519())))},
		{"hpke", "mlkem768x25519", loop(stdHPKE(stdhpke.MLKEM768X25519()))},
		{"hpke-errgroup", "p256", spread(stdHPKE(stdhpke.DHKEM(ecdh.P256())))},
		{"hpke-errgroup", "x25519", spread(stdHPKE(stdhpke.DHKEM(ecdh.X25519())))},
		{"hpke-errgroup", "mlkem768x25519", spread(stdHPKE(stdhpke.MLKEM768X25519()))},
		{"circl", "p256", loop(circl)},
		{"circl-errgroup", "p256", spread(circl)},
		{"tink", "p256", loop(tinkECIES)},
		{"tink-errgroup", "p256", spread(tinkECIES)},
		{"fanseal-sequential", "p256", fan(fanseal.P256, fanseal.Sequential)},
		{"fanseal-shared-parallel", "p256", fan(fanseal.P256, fanseal.SharedParallel)},
		{"fanseal-precomputed", "p256", fan(fanseal.P256, fanseal.Precomputed)},
		{"fanseal-channel", "p256", fan(fanseal.P256, fanseal.Channel)},
		{"fanseal-sequential", "x25519", fan(fanseal.X25519, fanseal.Sequential)},
		{"fanseal-shared-parallel", "x25519", fan(fanseal.X25519, fanseal.SharedParallel)},
		{"fanseal-parallel", "mlkem768x25519", fan(fanseal.MLKEM768X25519, fanseal.Parallel)},
		{"fanseal-private", "p256", fanPrivate(fanseal.P256)},
		{"fanseal-private", "x25519", fanPrivate(fanseal.X25519)},
		{"fanseal-private", "mlkem768x25519", fanPrivate(fanseal.MLKEM768X25519)},
	}
}

func BenchmarkSeal(b *testing.B) {
	for _, p := range peers() {
		for _, n := range counts {
			b.Run(fmt.Sprintf("peer=%s/suite=%s/n=%d", p.name, p.suite, n), func(b *testing.B) {
				seal, _ := p.setup(b, n)
				b.ReportAllocs()
				prep, ok := preparers[p.name]
				if !ok {
					for b.Loop() {
						if _, err := seal(); err != nil {
							b.Fatal(err)
						}
					}
					return
				}
				// Time the seal alone and report that as ns/op; the
				// refill between seals is background work by design.
				var timed time.Duration
				count := 0
				for b.Loop() {
					prep()
					start := time.Now()
					if _, err := seal(); err != nil {
						b.Fatal(err)
					}
					timed += time.Since(start)
					count++
				}
				b.ReportMetric(float64(timed.Nanoseconds())/float64(count), "ns/op")
			})
		}
	}
}

// BenchmarkOpen opens as the last recipient. A per-recipient peer's open
// is one bare open of its own ciphertext, the floor for one key
// agreement; its errgroup configuration opens the same way and is left
// out.
func BenchmarkOpen(b *testing.B) {
	for _, p := range peers() {
		if p.name == "fanseal-precomputed" || p.name == "fanseal-shared-parallel" || strings.HasSuffix(p.name, "-errgroup") {
			continue // opens like fanseal-sequential, or like its loop
		}
		for _, n := range []int{2, 20, 100} {
			b.Run(fmt.Sprintf("peer=%s/suite=%s/n=%d", p.name, p.suite, n), func(b *testing.B) {
				seal, open := p.setup(b, n)
				env, err := seal()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := open(env); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestPeersRoundTrip checks every peer's seal and open, so the benchmarks
// measure working code.
func TestPeersRoundTrip(t *testing.T) {
	for _, p := range peers() {
		t.Run(p.name+"/"+p.suite, func(t *testing.T) {
			seal, open := p.setup(nil, 3)
			env, err := seal()
			if err != nil {
				t.Fatal(err)
			}
			if err := open(env); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var key = make([]byte, 32)

func ageX25519(_ *testing.B, n int) (func() ([]byte, error), func([]byte) error) {
	return ageWith(n, func() (age.Identity, age.Recipient) {
		id := must(age.GenerateX25519Identity())
		return id, id.Recipient()
	})
}

func ageHybrid(_ *testing.B, n int) (func() ([]byte, error), func([]byte) error) {
	return ageWith(n, func() (age.Identity, age.Recipient) {
		id := must(age.GenerateHybridIdentity())
		return id, id.Recipient()
	})
}

// ageWith seals to n generated recipients and opens as the last.
func ageWith(n int, generate func() (age.Identity, age.Recipient)) (func() ([]byte, error), func([]byte) error) {
	var rs []age.Recipient
	var last age.Identity
	for range n {
		id, r := generate()
		rs = append(rs, r)
		last = id
	}
	return ageSeal(rs), ageOpen(last)
}

func ageSeal(rs []age.Recipient) func() ([]byte, error) {
	return func() ([]byte, error) {
		var buf bytes.Buffer
		w, err := age.Encrypt(&buf, rs...)
		if err != nil {
			return nil, err
		}
		w.Write(key)
		err = w.Close()
		return buf.Bytes(), err
	}
}

func ageOpen(id age.Identity) func([]byte) error {
	return func(env []byte) error {
		r, err := age.Decrypt(bytes.NewReader(env), id)
		if err != nil {
			return err
		}
		_, err = io.ReadAll(r)
		return err
	}
}

// A perRecipient peer seals for one recipient at a time. Given n, it
// generates n recipients and returns the seal for recipient i and the
// open of the last recipient's ciphertext within all of them.
type perRecipient func(n int) (sealOne func(i int) ([]byte, error), open func(all []byte) error)

// loop seals for one recipient after another: the loop a user writes
// with the peer's one-shot API.
func loop(p perRecipient) func(*testing.B, int) (func() ([]byte, error), func([]byte) error) {
	return func(_ *testing.B, n int) (func() ([]byte, error), func([]byte) error) {
		one, open := p(n)
		return func() ([]byte, error) {
			var out []byte
			for i := range n {
				ct, err := one(i)
				if err != nil {
					return nil, err
				}
				out = append(out, ct...)
			}
			return out, nil
		}, open
	}
}

// spread is the same loop spread over all cores with errgroup, at most
// GOMAXPROCS seals at a time: what a competent user writes for speed.
func spread(p perRecipient) func(*testing.B, int) (func() ([]byte, error), func([]byte) error) {
	return func(_ *testing.B, n int) (func() ([]byte, error), func([]byte) error) {
		one, open := p(n)
		return func() ([]byte, error) {
			cts := make([][]byte, n)
			var g errgroup.Group
			g.SetLimit(runtime.GOMAXPROCS(0))
			for i := range n {
				g.Go(func() (err error) {
					cts[i], err = one(i)
					return err
				})
			}
			if err := g.Wait(); err != nil {
				return nil, err
			}
			return bytes.Join(cts, nil), nil
		}, open
	}
}

// stdHPKE seals with crypto/hpke's one-shot Seal for each recipient;
// opening opens the last recipient's ciphertext directly.
func stdHPKE(kem stdhpke.KEM) perRecipient {
	return func(n int) (func(int) ([]byte, error), func([]byte) error) {
		var pks []stdhpke.PublicKey
		var last stdhpke.PrivateKey
		for range n {
			sk := must(kem.GenerateKey())
			pks = append(pks, sk.PublicKey())
			last = sk
		}
		seal := func(i int) ([]byte, error) {
			return stdhpke.Seal(pks[i], stdhpke.HKDFSHA256(), stdhpke.AES128GCM(), info, key)
		}
		size := len(must(seal(0)))
		open := func(all []byte) error {
			_, err := stdhpke.Open(last, stdhpke.HKDFSHA256(), stdhpke.AES128GCM(), info, all[(n-1)*size:])
			return err
		}
		return seal, open
	}
}

func circl(n int) (func(int) ([]byte, error), func([]byte) error) {
	suite := circlhpke.NewSuite(circlhpke.KEM_P256_HKDF_SHA256, circlhpke.KDF_HKDF_SHA256, circlhpke.AEAD_AES128GCM)
	scheme := circlhpke.KEM_P256_HKDF_SHA256.Scheme()
	var senders []*circlhpke.Sender
	var last kem.PrivateKey
	for range n {
		pk, sk := must2(scheme.GenerateKeyPair())
		senders = append(senders, must(suite.NewSender(pk, info)))
		last = sk
	}
	encSize := scheme.CiphertextSize()
	seal := func(i int) ([]byte, error) {
		enc, sealer, err := senders[i].Setup(rand.Reader)
		if err != nil {
			return nil, err
		}
		ct, err := sealer.Seal(key, nil)
		if err != nil {
			return nil, err
		}
		return append(enc, ct...), nil
	}
	size := encSize + len(key) + 16
	open := func(all []byte) error {
		c := all[(n-1)*size:]
		r, err := suite.NewReceiver(last, info)
		if err != nil {
			return err
		}
		o, err := r.Setup(c[:encSize])
		if err != nil {
			return err
		}
		_, err = o.Open(c[encSize:], nil)
		return err
	}
	return seal, open
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

func tinkECIES(n int) (func(int) ([]byte, error), func([]byte) error) {
	var encs []tink.HybridEncrypt
	var last tink.HybridDecrypt
	for range n {
		h := must(keyset.NewHandle(hybrid.ECIESHKDFAES128GCMKeyTemplate()))
		pub := must(h.Public())
		encs = append(encs, must(hybrid.NewHybridEncrypt(pub)))
		last = must(hybrid.NewHybridDecrypt(h))
	}
	seal := func(i int) ([]byte, error) { return encs[i].Encrypt(key, info) }
	size := len(must(seal(0)))
	open := func(all []byte) error {
		_, err := last.Decrypt(all[len(all)-size:], info)
		return err
	}
	return seal, open
}

// fan seals with a fanseal strategy, with key identifiers (each strategy
// as it is named: Sequential and Parallel with an ephemeral key per
// stanza), warm where the strategy keeps state (a full precompute pool,
// cached channel keys), and opens as the last recipient (with its keyring
// for channel stanzas).
func fan(s fanseal.Suite, st fanseal.Strategy) func(*testing.B, int) (func() ([]byte, error), func([]byte) error) {
	return fanWith(s, &fanseal.Sealer{Strategy: st, Identified: true})
}

// fanPrivate seals with the default Sealer: private envelopes.
func fanPrivate(s fanseal.Suite) func(*testing.B, int) (func() ([]byte, error), func([]byte) error) {
	return fanWith(s, new(fanseal.Sealer))
}

func fanWith(s fanseal.Suite, template *fanseal.Sealer) func(*testing.B, int) (func() ([]byte, error), func([]byte) error) {
	st := template.Strategy
	return func(b *testing.B, n int) (func() ([]byte, error), func([]byte) error) {
		sealer := &fanseal.Sealer{Strategy: st, Identified: template.Identified}
		var ids []*fanseal.Identity
		var rs []*fanseal.Recipient
		for range n {
			id := must(fanseal.GenerateIdentity(s))
			ids = append(ids, id)
			rs = append(rs, id.Recipient())
		}
		opener := new(fanseal.Opener)
		switch st {
		case fanseal.Channel:
			me := must(fanseal.GenerateIdentity(s))
			sealer.Keyring = must(fanseal.NewKeyring(me, 0))
			sealer.Keyring.AddPeer(rs...)
			ring := must(fanseal.NewKeyring(ids[n-1], 0))
			ring.AddPeer(me.Recipient())
			opener.Keyring = ring
		case fanseal.Precomputed:
			p := must(fanseal.NewPrecomputer(fanseal.PrecomputeOptions{PoolSize: 1, Workers: runtime.GOMAXPROCS(0)}, rs...))
			sealer.Precomputer = p
			if b != nil {
				b.Cleanup(func() { p.Close() })
			}
			// The warm pool is the case measured: BenchmarkSeal refills it,
			// untimed, before each seal.
			preparers["fanseal-precomputed"] = func() { p.WaitFull(context.Background()) }
			p.WaitFull(context.Background())
		}
		sealer.SealBytes(key, rs...) // warm the channel keys
		return func() ([]byte, error) { return sealer.SealBytes(key, rs...) },
			func(env []byte) error { _, err := opener.OpenBytes(env, ids[n-1]); return err }
	}
}
