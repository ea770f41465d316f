package fanseal

import (
	"bytes"
	"context"
	"crypto/ecdh"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/internal/format"
)

var benchSuites = []Suite{P256, X25519, Secp256k1, MLKEM768X25519}

// BenchmarkSeal seals a 32-byte session key, the synchronizer's case, with
// every strategy. Precomputed and channel strategies start warm (see
// benchPrecomputed).
func BenchmarkSeal(b *testing.B) {
	key := make([]byte, 32)
	for _, s := range benchSuites {
		ids, rs := identities(b, s, 100)
		for _, st := range Strategies {
			if (st == Channel || st == Shared || st == SharedParallel) && s.PostQuantum() {
				continue // no Diffie-Hellman to share or cache
			}
			for _, n := range []int{1, 2, 5, 10, 20, 100} {
				if n == 1 && st != Sequential && st != Parallel {
					continue
				}
				b.Run(fmt.Sprintf("suite=%s/strategy=%s/n=%d", s, st, n), func(b *testing.B) {
					switch st {
					case Precomputed:
						benchPrecomputed(b, key, rs[:n])
						return
					case Channel:
						sender, _ := GenerateIdentity(s)
						kr, _ := NewKeyring(sender, 0)
						kr.AddPeer(rs[:n]...)
						sealer := &Sealer{Strategy: Channel, Keyring: kr}
						sealer.SealBytes(key, rs[:n]...) // warm the channel keys
						benchSeal(b, sealer, key, rs[:n])
					default:
						benchSeal(b, &Sealer{Strategy: st}, key, rs[:n])
					}
				})
			}
		}
		_ = ids
	}
	// ssh-ed25519 recipients are X25519 recipients with their own key
	// identifier and HPKE info: the same agreements, batched and shared.
	_, rs := sshIdentities(b, 100)
	for _, st := range []Strategy{Sequential, Parallel, Shared, SharedParallel} {
		for _, n := range []int{20, 100} {
			b.Run(fmt.Sprintf("suite=ssh-ed25519/strategy=%s/n=%d", st, n), func(b *testing.B) {
				benchSeal(b, &Sealer{Strategy: st, Identified: true}, key, rs[:n])
			})
		}
	}
}

func benchSeal(b *testing.B, sealer *Sealer, key []byte, rs []*Recipient) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sealer.SealBytes(key, rs...); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPrecomputed measures sealing with a warm pool: each iteration waits
// for every pool to be full, then times the seal alone and reports that
// as ns/op (the wait, background work by design, is excluded). Allocations
// include the background refills.
func benchPrecomputed(b *testing.B, key []byte, rs []*Recipient) {
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 1, Workers: runtime.GOMAXPROCS(0)}, rs...)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	sealer := &Sealer{Strategy: Precomputed, Precomputer: p}
	var timed time.Duration
	count := 0
	b.ReportAllocs()
	for b.Loop() {
		if err := p.WaitFull(context.Background()); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := sealer.SealBytes(key, rs...); err != nil {
			b.Fatal(err)
		}
		timed += time.Since(start)
		count++
	}
	b.ReportMetric(float64(timed.Nanoseconds())/float64(count), "ns/op")
}

// BenchmarkColdSeal seals a 32-byte key for n recipients, cold (no
// precomputed items, no channel keys), in the default (private) envelope,
// beside what a competent user writes with Go's crypto/hpke: one
// crypto/hpke Seal per recipient in an errgroup over GOMAXPROCS goroutines
// (impl=hpke-errgroup), with AES-256-GCM as fanseal's default. A private
// envelope's recipients of a suite share one ephemeral key whatever the
// strategy, so fanseal-parallel seals as fanseal-shared-parallel does; the
// post-quantum suite is measured once, as fanseal-parallel.
func BenchmarkColdSeal(b *testing.B) {
	key := make([]byte, 32)
	for _, s := range []Suite{X25519, P256, MLKEM768X25519} {
		_, rs := identities(b, s, 20)
		kem := map[Suite]stdhpke.KEM{
			X25519: stdhpke.DHKEM(ecdh.X25519()), P256: stdhpke.DHKEM(ecdh.P256()), MLKEM768X25519: stdhpke.MLKEM768X25519(),
		}[s]
		for _, n := range []int{5, 20} {
			b.Run(fmt.Sprintf("suite=%s/impl=hpke-errgroup/n=%d", s, n), func(b *testing.B) {
				pks := make([]stdhpke.PublicKey, n)
				for i, r := range rs[:n] {
					var err error
					if pks[i], err = kem.NewPublicKey(r.raw); err != nil {
						b.Fatal(err)
					}
				}
				cts := make([][]byte, n)
				b.ReportAllocs()
				for b.Loop() {
					var g errgroup.Group
					g.SetLimit(runtime.GOMAXPROCS(0))
					for i, pk := range pks {
						g.Go(func() (err error) {
							cts[i], err = stdhpke.Seal(pk, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), []byte(stanzaInfo), key)
							return err
						})
					}
					if err := g.Wait(); err != nil {
						b.Fatal(err)
					}
				}
			})
			for _, st := range []Strategy{Parallel, SharedParallel} {
				if st == SharedParallel && s.PostQuantum() {
					continue
				}
				b.Run(fmt.Sprintf("suite=%s/impl=fanseal-%s/n=%d", s, st, n), func(b *testing.B) {
					benchSeal(b, &Sealer{Strategy: st}, key, rs[:n])
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

// BenchmarkOpen opens a 32-byte payload as the last of n recipients: cold,
// from a channel stanza with a warm keyring, and from the session cache.
func BenchmarkOpen(b *testing.B) {
	for _, s := range []Suite{P256, X25519} {
		ids, rs := identities(b, s, 20)
		sender, _ := GenerateIdentity(s)
		kr, _ := NewKeyring(sender, 0)
		kr.AddPeer(rs...)
		ring, _ := NewKeyring(ids[19], 0)
		ring.AddPeer(sender.Recipient())
		env, _ := (&Sealer{Strategy: Channel, Keyring: kr}).SealBytes(make([]byte, 32), rs...)
		b.Run(fmt.Sprintf("suite=%s/strategy=channel/n=20", s), func(b *testing.B) {
			o := &Opener{Keyring: ring}
			o.OpenBytes(env) // warm the channel key
			benchOpen(b, o, env, nil)
		})
		cache := NewSessionCache(0, time.Hour)
		plain, _ := SealBytes(make([]byte, 32), rs...)
		b.Run(fmt.Sprintf("suite=%s/cache=hit/n=20", s), func(b *testing.B) {
			o := &Opener{Cache: cache}
			o.OpenBytes(plain, ids[19])
			benchOpen(b, o, plain, ids[19])
		})
		b.Run(fmt.Sprintf("suite=%s/cache=miss/n=20", s), func(b *testing.B) {
			benchOpen(b, new(Opener), plain, ids[19])
		})
	}
	for _, s := range benchSuites {
		for _, n := range []int{2, 100, 1000} {
			ids, rs := identities(b, s, n)
			env, err := SealBytes(make([]byte, 32), rs...)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("suite=%s/n=%d", s, n), func(b *testing.B) {
				benchOpen(b, new(Opener), env, ids[n-1])
			})
		}
	}
}

func benchOpen(b *testing.B, o *Opener, env []byte, id *Identity) {
	var ids []*Identity
	if id != nil {
		ids = append(ids, id)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.OpenBytes(env, ids...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStream measures the payload path through the streaming API, on
// one core, and, for 64 MiB, with one and two payload workers (the payload
// copied in as io.Copy from a bytes.Reader does: one Write).
func BenchmarkStream(b *testing.B) {
	ids, rs := identities(b, X25519, 1)
	big := randomBytes(64 << 20)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("op=seal/size=64MiB/workers=%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(big)))
			b.ReportAllocs()
			for b.Loop() {
				wc, err := (&Sealer{PayloadWorkers: w}).Seal(io.Discard, rs...)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(wc, bytes.NewReader(big)); err != nil {
					b.Fatal(err)
				}
				if err := wc.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, size := range []struct {
		name string
		n    int
	}{{"64KiB", 64 << 10}, {"16MiB", 16 << 20}} {
		pt := randomBytes(size.n)
		b.Run("op=seal/size="+size.name, func(b *testing.B) {
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				w, err := (&Sealer{PayloadWorkers: 1}).Seal(io.Discard, rs...)
				if err != nil {
					b.Fatal(err)
				}
				w.Write(pt)
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
		env, _ := (&Sealer{PayloadWorkers: 1}).SealBytes(pt, rs...)
		b.Run("op=open/size="+size.name, func(b *testing.B) {
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			for b.Loop() {
				r, err := (&Opener{PayloadWorkers: 1}).Open(bytes.NewReader(env), ids[0])
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

// BenchmarkKeyringWarm derives the sending channel keys of a keyring's n
// peers for a new epoch: n key agreements, eight to a pass on IFMA CPUs.
func BenchmarkKeyringWarm(b *testing.B) {
	for _, s := range []Suite{X25519, P256, Secp256k1} {
		_, rs := identities(b, s, 100)
		me, _ := GenerateIdentity(s)
		kr, _ := NewKeyring(me, 0)
		kr.AddPeer(rs...)
		b.Run(fmt.Sprintf("suite=%s/n=100", s), func(b *testing.B) {
			b.ReportAllocs()
			epoch := uint32(0)
			for b.Loop() {
				epoch++
				kr.SetEpoch(epoch)
				if err := kr.Warm(0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPrecomputeBatch is one Precomputer refill of eight items, what
// a worker computes for eight places of one suite's pools: one batch
// (impl=batch: passes of the IFMA engines, for the post-quantum suite
// its X25519 halves) against eight items one at a time (impl=single).
func BenchmarkPrecomputeBatch(b *testing.B) {
	for _, s := range benchSuites {
		_, rs := identities(b, s, 8)
		cs, _ := lookupSuite(s, AES256GCM)
		b.Run(fmt.Sprintf("suite=%s/impl=batch/n=8", s), func(b *testing.B) {
			if !cs.batches() {
				b.Skip("no AVX-512 IFMA")
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, errs := cs.precomputeBatch(rs); errs != nil {
					b.Fatal(errs)
				}
			}
		})
		b.Run(fmt.Sprintf("suite=%s/impl=single/n=8", s), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, r := range rs {
					if _, err := cs.precompute(r); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkOpenAll opens 64 envelopes of a 32-byte payload for one
// identity (each sealed to 5 recipients, alternately with HPKE and shared
// stanzas): with OpenAll (mode=batch) and with 64 OpenBytes
// (mode=single). Run it with -cpu 1 for the one-core figure: OpenAll
// computes every agreement on the calling goroutine.
func BenchmarkOpenAll(b *testing.B) {
	for _, s := range []Suite{X25519, P256, Secp256k1, MLKEM768X25519} {
		ids, rs := identities(b, s, 5)
		envs := make([][]byte, 64)
		for i := range envs {
			envs[i] = mustSeal(b, &Sealer{Strategy: []Strategy{Sequential, Shared}[i%2]}, make([]byte, 32), rs...)
		}
		o := &Opener{PayloadWorkers: 1}
		b.Run(fmt.Sprintf("suite=%s/n=64/mode=batch", s), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, errs := o.OpenAll(envs, ids[4]); errs[63] != nil {
					b.Fatal(errs[63])
				}
			}
		})
		b.Run(fmt.Sprintf("suite=%s/n=64/mode=single", s), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, env := range envs {
					if _, err := o.OpenBytes(env, ids[4]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkHeaderMAC is what every opener spends on the header MAC of an
// envelope for n recipients, beside its key agreement: the HKDF of the MAC
// and payload keys and the HMAC over the whole header (SetBytes: the
// header's size). A post-quantum stanza holds a 1 088-byte ML-KEM
// ciphertext, so its header is about 1.2 KB per recipient.
func BenchmarkHeaderMAC(b *testing.B) {
	for _, s := range benchSuites {
		for _, n := range []int{2, 20, 100} {
			_, rs := identities(b, s, n)
			env := mustSeal(b, &Sealer{}, make([]byte, 32), rs...)
			h, _, err := format.ParseHeader(env)
			if err != nil {
				b.Fatal(err)
			}
			key := make([]byte, format.FileKeySize) // not the file key: the same work, a mismatch at the end
			b.Run(fmt.Sprintf("suite=%s/n=%d", s, n), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(h.Raw)))
				for b.Loop() {
					checkHeader(h, key)
				}
			})
		}
	}
}

// BenchmarkSSHRSA seals to one 2048-bit ssh-rsa recipient and opens it:
// one RSA-OAEP encryption, one decryption.
func BenchmarkSSHRSA(b *testing.B) {
	id, r := rsaIdentity(b)
	key := make([]byte, 32)
	b.Run("op=seal/bits=2048", func(b *testing.B) { benchSeal(b, new(Sealer), key, []*Recipient{r}) })
	env, _ := SealBytes(key, r)
	b.Run("op=open/bits=2048", func(b *testing.B) {
		for b.Loop() {
			if _, err := OpenBytes(env, id); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSealTexts seals a 32-byte key to n recipients that arrive as
// text with each message, as in a service that seals to the keys a
// request names: op=parse parses them, op=parse+seal seals to them too,
// with ParseRecipient (cache=none) or through a warm SessionCache
// (cache=session), which keeps post-quantum recipients parsed.
func BenchmarkSealTexts(b *testing.B) {
	key := make([]byte, 32)
	for _, s := range []Suite{X25519, MLKEM768X25519} {
		_, rs := identities(b, s, 20)
		texts := make([]string, len(rs))
		for i, r := range rs {
			texts[i] = r.String()
		}
		for _, cached := range []bool{false, true} {
			parse := ParseRecipient
			name := "none"
			if cached {
				c := NewSessionCache(0, 0)
				for range 2 {
					for _, t := range texts {
						c.ParseRecipient(t)
					}
				}
				parse, name = c.ParseRecipient, "session"
			}
			for _, op := range []string{"parse", "parse+seal"} {
				b.Run(fmt.Sprintf("suite=%s/op=%s/cache=%s/n=%d", s, op, name, len(texts)), func(b *testing.B) {
					b.ReportAllocs()
					parsed := make([]*Recipient, len(texts))
					for b.Loop() {
						for i, t := range texts {
							var err error
							if parsed[i], err = parse(t); err != nil {
								b.Fatal(err)
							}
						}
						if op == "parse+seal" {
							if _, err := SealBytes(key, parsed...); err != nil {
								b.Fatal(err)
							}
						}
					}
				})
			}
		}
	}
}

// BenchmarkPrivate compares private envelopes (the default) with
// identified ones (Sealer.Identified), each op=… row once per form:
// opening as the last recipient with one identity, sealing a 32-byte key
// to n recipients with the default strategy (Parallel: private envelopes
// then share one ephemeral key per suite), and OpenAll of 64 envelopes
// to five recipients with one identity. form=hpke is one bare crypto/hpke
// open of a stanza, the floor of any open.
func BenchmarkPrivate(b *testing.B) {
	forms := []struct {
		name string
		s    *Sealer
	}{{"private", &Sealer{}}, {"identified", &Sealer{Identified: true}}}
	for _, c := range []struct {
		s Suite
		n int
	}{{X25519, 100}, {MLKEM768X25519, 20}, {P256, 20}} {
		ids, rs := identities(b, c.s, c.n)
		for _, f := range forms {
			env := mustSeal(b, f.s, make([]byte, 32), rs...)
			b.Run(fmt.Sprintf("op=open/suite=%s/form=%s/n=%d", c.s, f.name, c.n), func(b *testing.B) {
				benchOpen(b, new(Opener), env, ids[c.n-1])
			})
		}
		b.Run(fmt.Sprintf("op=open/suite=%s/form=hpke/n=1", c.s), func(b *testing.B) {
			benchBareOpen(b, c.s)
		})
	}
	key := make([]byte, 32)
	for _, s := range benchSuites {
		_, rs := identities(b, s, 20)
		for _, f := range forms {
			b.Run(fmt.Sprintf("op=seal/suite=%s/form=%s/n=20", s, f.name), func(b *testing.B) {
				benchSeal(b, f.s, key, rs)
			})
		}
	}
	for _, s := range []Suite{X25519, MLKEM768X25519} {
		ids, rs := identities(b, s, 5)
		for _, f := range forms {
			envs := make([][]byte, 64)
			for i := range envs {
				envs[i] = mustSeal(b, f.s, make([]byte, 32), rs...)
			}
			o := &Opener{PayloadWorkers: 1}
			b.Run(fmt.Sprintf("op=openall/suite=%s/form=%s/n=64", s, f.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, errs := o.OpenAll(envs, ids[4]); errs[63] != nil {
						b.Fatal(errs[63])
					}
				}
			})
		}
	}
}

// benchBareOpen opens one HPKE stanza of suite s with crypto/hpke: the
// recipient context and one AEAD open, as a user of crypto/hpke would.
func benchBareOpen(b *testing.B, s Suite) {
	var sk stdhpke.PrivateKey
	var err error
	switch s {
	case X25519:
		sk, err = stdhpke.DHKEM(ecdh.X25519()).GenerateKey()
	case P256:
		sk, err = stdhpke.DHKEM(ecdh.P256()).GenerateKey()
	default:
		sk, err = stdhpke.MLKEM768X25519().GenerateKey()
	}
	if err != nil {
		b.Fatal(err)
	}
	info, aad := []byte("fanseal/v1 file key"), make([]byte, 29)
	enc, sender, err := stdhpke.NewSender(sk.PublicKey(), stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), info)
	if err != nil {
		b.Fatal(err)
	}
	ct, err := sender.Seal(aad, make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := stdhpke.NewRecipient(enc, sk, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), info)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Open(aad, ct); err != nil {
			b.Fatal(err)
		}
	}
}
