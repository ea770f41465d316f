package fanseal

import (
	"bytes"
	"context"
	"crypto/ecdh"
	stdhpke "crypto/hpke"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// openWithStdlib opens every HPKE and shared stanza of env with Go's
// crypto/hpke and the identity it names, and returns the file key they
// all hold. The identities are of one suite, X25519, P-256 or
// ML-KEM-768+X25519 (crypto/hpke has no secp256k1: for those it returns
// nil).
func openWithStdlib(t *testing.T, env []byte, ids []*Identity) []byte {
	t.Helper()
	curve := map[Suite]ecdh.Curve{X25519: ecdh.X25519(), P256: ecdh.P256()}[ids[0].suite]
	if curve == nil && !ids[0].suite.PostQuantum() {
		return nil
	}
	preamble := env[:format.PreambleSize]
	var eph []byte
	var fileKey []byte
	for _, st := range stanzasOf(t, env) {
		var keyID, enc, ct []byte
		switch st.Type {
		case format.StanzaEphemeral:
			_, eph, _ = format.ParseEphemeral(st.Body)
			continue
		case format.StanzaHPKE:
			hs, err := format.ParseHPKE(st.Body, false)
			if err != nil {
				t.Fatal(err)
			}
			keyID, enc, ct = hs.KeyID, hs.Enc, hs.CT
		case format.StanzaShared:
			hs, err := format.ParseShared(st.Body, false)
			if err != nil {
				t.Fatal(err)
			}
			keyID, enc, ct = hs.KeyID, eph, hs.CT
		default:
			continue
		}
		var id *Identity
		for _, i := range ids {
			if bytes.Equal(i.r.id[:], keyID) {
				id = i
			}
		}
		// The post-quantum identity opens with crypto/hpke's own
		// MLKEM768-X25519 key from the same seed.
		var sk stdhpke.PrivateKey
		if curve == nil {
			var err error
			if sk, err = stdhpke.MLKEM768X25519().NewPrivateKey(id.priv); err != nil {
				t.Fatal(err)
			}
		} else {
			priv, err := curve.NewPrivateKey(id.priv)
			if err != nil {
				t.Fatal(err)
			}
			sk, _ = stdhpke.NewDHKEMPrivateKey(priv)
		}
		r, err := stdhpke.NewRecipient(enc, sk, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), []byte("fanseal/v1 file key"))
		if err != nil {
			t.Fatal(err)
		}
		key, err := r.Open(preamble, ct)
		if err != nil {
			t.Fatalf("crypto/hpke cannot open stanza %d (type %d): %v", st.Index, st.Type, err)
		}
		if fileKey != nil && !bytes.Equal(key, fileKey) {
			t.Fatal("stanzas hold different file keys")
		}
		fileKey = key
	}
	return fileKey
}

// batchingSuites are the classical suites, whose key agreements seals
// gather into passes on an IFMA CPU (the post-quantum suite's X25519
// halves too).
var batchingSuites = []Suite{X25519, P256, Secp256k1}

// batches reports whether suite s's agreements run in passes here.
func batches(s Suite) bool {
	cs, err := lookupSuite(s, AES256GCM)
	return err == nil && cs.batches()
}

// gathered reports whether a seal with strategy st on parallelism
// goroutines gathers n agreements of suite s into passes on this CPU: on
// the workers it has (one for Sequential and Shared), where the passes
// cost no more than the agreements one at a time (cipherSuite.gathers).
func gathered(s Suite, st Strategy, parallelism, n int) bool {
	cs, err := lookupSuite(s, AES256GCM)
	workers := 1
	if st != Sequential && st != Shared {
		workers = parallelism
	}
	return err == nil && cs.gathers(n, workers)
}

// TestBatchedStanzas seals for 19 recipients of each suite (passes of 7,
// 6 and 6 lanes, or of 4 on AVX2 alone) with every strategy that batches,
// on two goroutines, and opens every stanza with crypto/hpke (X25519,
// P-256) and OpenBytes (whose post-quantum open is crypto/hpke's). Where
// the suite batches, the agreements must have run in batches (the four
// channel keys' warm-up only where a pass costs no more than two
// agreements one at a time).
func TestBatchedStanzas(t *testing.T) {
	for _, suite := range append(batchingSuites, MLKEM768X25519) {
		ids, rs := identities(t, suite, 19)
		for _, st := range []Strategy{Parallel, Shared, SharedParallel, Precomputed, Channel} {
			if st == Channel && suite.PostQuantum() {
				continue // no Diffie-Hellman to cache
			}
			t.Run(fmt.Sprintf("suite=%s/strategy=%s", suite, st), func(t *testing.T) {
				s := &Sealer{Identified: true, Strategy: st, Parallelism: 2}
				switch st {
				case Precomputed:
					// Counted from before the workers start: they may refill
					// before NewPrecomputer returns.
					before := batchedAgreements.Load()
					p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 2, Workers: 2}, rs[:10]...)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					if err := p.WaitFull(context.Background()); err != nil {
						t.Fatal(err)
					}
					if batches(suite) && batchedAgreements.Load()-before < 20 {
						t.Fatalf("refills computed %d agreements in batches, want 20", batchedAgreements.Load()-before)
					}
					s.Precomputer = p
				case Channel:
					me, _ := GenerateIdentity(suite)
					s.Keyring, _ = NewKeyring(me, 0)
					s.Keyring.AddPeer(rs[:4]...) // the other 15 get HPKE stanzas
				}
				before := batchedAgreements.Load()
				env := mustSeal(t, s, []byte("payload"), rs...)
				batched := batchedAgreements.Load() - before
				want := uint64(19)
				switch st {
				case Precomputed:
					want = 9 // the ten hot recipients are served from their pools
				case Channel:
					want = 15 // the HPKE stanzas
					if gathered(suite, st, 2, 4) {
						want += 4 // and the channel keys' warm-up
					}
				}
				if st == Precomputed {
					// The pools refill in the background meanwhile.
					batched = min(batched, want)
				}
				if st != Channel && st != Precomputed && !gathered(suite, st, 2, 19) {
					want = 0 // passes of this suite cost more than its agreements on two cores here
				}
				if batches(suite) && batched != want {
					t.Fatalf("%d agreements in batches, want %d", batched, want)
				}
				if !batches(suite) && batched != 0 {
					t.Fatalf("%d agreements in batches without IFMA", batched)
				}
				if key := openWithStdlib(t, env, ids); suite != Secp256k1 && st != Channel && key == nil {
					t.Fatal("no stanza opened")
				}
				for _, id := range ids[4:] {
					mustOpen(t, env, []byte("payload"), id)
				}
			})
		}
	}
}

// TestHybridPasses: a post-quantum seal cuts its X25519 halves into as
// few passes as there are eight recipients (four on AVX2 alone), on any
// number of goroutines that the passes save time on (on 16 goroutines,
// twenty agreements one at a time take two agreements' time, less than a
// pass, except with AVX-512 IFMA), since a pass costs as much for one lane
// as for all; the ML-KEM-768 encapsulations, which need no pass, keep the
// other goroutines busy. Every plan leaves the batch with its sender
// context, and every recipient opens.
func TestHybridPasses(t *testing.T) {
	if !batches(MLKEM768X25519) {
		t.Skip("the X25519 halves are batched only with AVX2")
	}
	ids, rs := identities(t, MLKEM768X25519, 20)
	for _, parallelism := range []int{1, 2, 3, 16} {
		s := &Sealer{Identified: true, Strategy: Parallel, Parallelism: parallelism}
		ps, err := s.plans(rs, make([]byte, AgeSecretSize))
		if err != nil {
			t.Fatal(err)
		}
		want, wantN := uint64(0), 0
		if gathered(MLKEM768X25519, Parallel, parallelism, 20) {
			want, wantN = uint64(ceilDiv(20, hpke.HybridBatchSize(20))), 20
		}
		before := batchPasses.Load()
		n, err := s.batchAgreements(ps, parallelism > 1)
		if got := batchPasses.Load() - before; err != nil || n != wantN || got != want {
			t.Errorf("20 recipients on %d goroutines: %d passes for %d stanzas (%v), want %d for %d", parallelism, got, n, err, want, wantN)
		}
		for i, p := range ps {
			if wantN > 0 && (p.item == nil || p.item.ctx == nil || len(p.item.enc) != hpke.HybridEncSize || p.heavy) {
				t.Fatalf("%d goroutines: plan %d left without its sender context", parallelism, i)
			}
		}
		env := mustSeal(t, s, []byte("pq"), rs...)
		for _, i := range []int{0, 7, 8, 15, 16, 19} {
			mustOpen(t, env, []byte("pq"), ids[i])
		}
	}
}

// TestBatchedMixedSuites seals for recipients of the three classical
// suites interleaved: each suite's agreements are gathered into passes of
// their own where the passes pay on this CPU, and every recipient opens.
func TestBatchedMixedSuites(t *testing.T) {
	var ids []*Identity
	var rs []*Recipient
	for i := range 9 {
		for _, s := range batchingSuites {
			id, r := identities(t, s, i+1)
			ids, rs = append(ids, id[i]), append(rs, r[i])
		}
	}
	for _, st := range []Strategy{Parallel, Shared, SharedParallel} {
		t.Run("strategy="+st.String(), func(t *testing.T) {
			before := batchedAgreements.Load()
			env := mustSeal(t, &Sealer{Identified: true, Strategy: st, Parallelism: 2}, []byte("mixed"), rs...)
			want := uint64(0)
			for _, s := range batchingSuites {
				if gathered(s, st, 2, 9) {
					want += 9
				}
			}
			if got := batchedAgreements.Load() - before; got != want {
				t.Fatalf("%d agreements in batches, want %d", got, want)
			}
			for _, id := range ids {
				mustOpen(t, env, []byte("mixed"), id)
			}
		})
	}
}

// TestGathers: a seal gathers its agreements of a suite into one pass
// only where the pass costs no more than the agreements one at a time on
// the goroutines it has: on one goroutine where a pass costs at most two
// agreements (P-256's 1.6; X25519's 1.25 with AVX-512 IFMA against circl's
// ladder, not its 2.1 with AVX2 alone), on two goroutines for two or three
// agreements only where a pass costs one agreement or less (secp256k1),
// not where the goroutines compute them in the time of one agreement, less
// than a pass.
func TestGathers(t *testing.T) {
	for _, suite := range append(batchingSuites, MLKEM768X25519) {
		_, rs := identities(t, suite, 3)
		cs, _ := lookupSuite(suite, AES256GCM)
		cost := hpke.HybridPassCost()
		if cs.kem != nil {
			cost = cs.kem.PassCost()
		}
		for _, c := range []struct {
			st          Strategy
			parallelism int
			n           int
			maxCost     float64 // the most a pass may cost to be gathered
		}{
			{Shared, 2, 2, 2}, // Shared is one goroutine
			{SharedParallel, 1, 2, 2},
			{SharedParallel, 2, 2, 1},
			{Parallel, 2, 2, 1},
			{Parallel, 2, 3, 2},
			{Parallel, 3, 3, 1},
		} {
			before := batchedAgreements.Load()
			mustSeal(t, &Sealer{Identified: true, Strategy: c.st, Parallelism: c.parallelism}, nil, rs[:c.n]...)
			want := uint64(0)
			if cost <= c.maxCost && batches(suite) {
				want = uint64(c.n)
			}
			if got := batchedAgreements.Load() - before; got != want {
				t.Errorf("%s, %s on %d goroutines, %d recipients, a pass costing %.2f agreements: %d agreements in batches, want %d", suite, c.st, c.parallelism, c.n, cost, got, want)
			}
		}
	}
}

// lowOrderRecipient is an X25519 recipient whose key is the point 0: every
// agreement with it is all zeros, which sealing must refuse. NewRecipient
// refuses such a key (TestX25519PublicKeyRefused), so the recipient is
// built around it here, to test the checks at sealing time behind that.
func lowOrderRecipient(t *testing.T) *Recipient {
	kem, err := hpke.NewKEM(uint16(X25519))
	if err != nil {
		t.Fatal(err)
	}
	r := &Recipient{suite: X25519, raw: make([]byte, 32)}
	if r.dh, err = kem.NewPublicKey(r.raw); err != nil {
		t.Fatal(err)
	}
	r.id, r.fp = keyDigest(X25519, r.raw)
	return r
}

// TestBatchedLowOrder puts a low-order recipient among good ones: every
// strategy refuses to seal, naming its stanza, whether the agreements ran
// in a batch or one at a time.
func TestBatchedLowOrder(t *testing.T) {
	_, rs := identities(t, X25519, 9)
	rs = append(append(append([]*Recipient{}, rs[:3]...), lowOrderRecipient(t)), rs[3:]...)
	for _, st := range []Strategy{Sequential, Parallel, Shared, SharedParallel} {
		before := batchedAgreements.Load()
		_, err := (&Sealer{Identified: true, Strategy: st}).SealBytes([]byte("x"), rs...)
		stanza := 3
		if st == Shared || st == SharedParallel {
			stanza = 4 // after the ephemeral key's stanza
		}
		if !errors.Is(err, hpke.ErrInvalidKey) || !strings.Contains(err.Error(), fmt.Sprintf("sealing stanza %d:", stanza)) {
			t.Errorf("%s: error %v, want an invalid key at stanza %d", st, err, stanza)
		}
		if batched := batchedAgreements.Load() - before; st != Sequential && x25519x8.Accelerated() && batched == 0 {
			t.Errorf("%s: the agreements did not run in a batch", st)
		}
	}
}

// lowOrderHybrid is a post-quantum recipient whose X25519 half is the
// low-order point 0: NewRecipient refuses it (TestX25519PublicKeyRefused),
// so it is built around the key here, to test the checks at sealing time
// behind that.
func lowOrderHybrid(t *testing.T, good *Recipient) *Recipient {
	raw := bytes.Clone(good.raw)
	clear(raw[len(raw)-32:])
	if _, err := NewRecipient(MLKEM768X25519, raw); err == nil {
		t.Fatal("NewRecipient accepts a low-order X25519 half")
	}
	r := &Recipient{suite: MLKEM768X25519, raw: raw}
	var err error
	if r.pq, err = hpke.NewHybridPublicKey(raw); err != nil {
		t.Fatal(err)
	}
	r.id, r.fp = keyDigest(MLKEM768X25519, raw)
	return r
}

// TestBatchedLowOrderHybrid: post-quantum recipients whose X25519 half is
// the low-order point 0 among good ones make every strategy refuse to
// seal with ErrInvalidKey, as crypto/hpke's NewSender does, naming the
// first of their stanzas, batched or not, on any number of goroutines,
// whichever goroutine finishes first.
func TestBatchedLowOrderHybrid(t *testing.T) {
	_, good := identities(t, MLKEM768X25519, 19)
	bad := lowOrderHybrid(t, good[0])
	if _, _, err := stdhpke.NewSender(mustStdPQ(t, bad.raw), stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), nil); err == nil {
		t.Fatal("crypto/hpke seals to a low-order X25519 half")
	}
	rs := append(append(append(append(append([]*Recipient{}, good[1:12]...), bad), good[12:13]...), lowOrderHybrid(t, good[1])), good[13:]...)
	for _, st := range []Strategy{Sequential, Parallel, Shared, SharedParallel} {
		for _, parallelism := range []int{1, 2, 16} {
			for range 20 {
				before := batchedAgreements.Load()
				_, err := (&Sealer{Identified: true, Strategy: st, Parallelism: parallelism}).SealBytes([]byte("x"), rs...)
				if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "sealing stanza 11:") {
					t.Fatalf("%s on %d goroutines: error %v, want an invalid key at stanza 11", st, parallelism, err)
				}
				if batched := batchedAgreements.Load() - before; st != Sequential && gathered(MLKEM768X25519, st, parallelism, len(rs)) && batched == 0 {
					t.Fatalf("%s: the agreements did not run in a batch", st)
				}
			}
		}
	}
}

func mustStdPQ(t *testing.T, raw []byte) stdhpke.PublicKey {
	t.Helper()
	pk, err := stdhpke.MLKEM768X25519().NewPublicKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return pk
}

// TestKeyringWarm warms a keyring's channel keys in batches: sealing to
// its peers afterwards does no key agreement, every peer opens, and a
// low-order peer is named in Warm's error without stopping the others.
func TestKeyringWarm(t *testing.T) {
	for _, s := range batchingSuites {
		t.Run("suite="+s.String(), func(t *testing.T) {
			ids, rs := identities(t, s, 10)
			me, _ := GenerateIdentity(s)
			kr, _ := NewKeyring(me, 0)
			kr.AddPeer(rs...)
			before := batchedAgreements.Load()
			if err := kr.Warm(0); err != nil {
				t.Fatal(err)
			}
			if got := kr.agreements.Load(); got != 10 {
				t.Fatalf("Warm did %d key agreements, want 10", got)
			}
			cs, _ := lookupSuite(s, AES256GCM)
			if batched := batchedAgreements.Load() - before; cs.gathers(10, runtime.GOMAXPROCS(0)) && batched != 10 {
				t.Fatalf("%d agreements in batches, want 10", batched)
			}
			if err := kr.Warm(AES256GCM); err != nil || kr.agreements.Load() != 10 {
				t.Fatalf("warming again: %v, %d agreements", err, kr.agreements.Load())
			}
			env := mustSeal(t, &Sealer{Identified: true, Strategy: Channel, Keyring: kr}, []byte("view"), rs...)
			if got := kr.agreements.Load(); got != 10 {
				t.Fatalf("sealing after Warm did %d more key agreements", got-10)
			}
			for _, id := range ids {
				ring, _ := NewKeyring(id, 0)
				ring.AddPeer(me.Recipient())
				if got, err := (&Opener{Keyring: ring}).OpenBytes(env, id); err != nil || string(got) != "view" {
					t.Fatalf("peer cannot open: %v", err)
				}
			}
		})
	}
	t.Run("low-order", func(t *testing.T) {
		_, rs := identities(t, X25519, 5)
		me, _ := GenerateIdentity(X25519)
		kr, _ := NewKeyring(me, 0)
		bad := lowOrderRecipient(t)
		kr.AddPeer(append(rs, bad)...)
		err := kr.Warm(0)
		if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), fmt.Sprintf("%x", bad.id)) {
			t.Fatalf("Warm error %v, want an invalid key naming %x", err, bad.id)
		}
		before := kr.agreements.Load()
		mustSeal(t, &Sealer{Identified: true, Strategy: Channel, Keyring: kr}, []byte("x"), rs...)
		if kr.agreements.Load() != before {
			t.Fatal("the good peers were not warmed")
		}
	})
}

// TestPrecomputeLowOrderGoesCold: a hot recipient that nothing can be
// sealed to is dropped from the hot set instead of being retried forever,
// and the good recipients' pools still fill.
func TestPrecomputeLowOrderGoesCold(t *testing.T) {
	_, rs := identities(t, X25519, 2)
	bad := lowOrderRecipient(t)
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 2}, rs[0], bad, rs[1])
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitFull(ctx); err != nil {
		t.Fatalf("the pools never filled: %v", err)
	}
	time.Sleep(20 * time.Millisecond)
	n := p.computed.Load()
	time.Sleep(50 * time.Millisecond)
	if p.computed.Load() != n || p.Ready() != 4 {
		t.Fatalf("workers keep computing: %d items, then %d; %d ready", n, p.computed.Load(), p.Ready())
	}
	for _, s := range []*Sealer{{Strategy: Precomputed, Precomputer: p}, {Strategy: Sequential}, {Strategy: SharedParallel}} {
		if _, err := s.SealBytes(nil, rs[0], bad); !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("%s: sealing to the low-order recipient: %v", s.Strategy, err)
		}
	}
}

// TestKeyringWarmUnsupportedAEAD: Warm refuses an AEAD that no envelope
// can use with ErrUnsupported, before any key agreement, instead of
// caching channel keys for it (AEAD 0x0001, AES-128-GCM, which
// internal/hpke would key with 32 bytes, as AES-256) or failing per peer
// with an error no sentinel matches.
func TestKeyringWarmUnsupportedAEAD(t *testing.T) {
	_, rs := identities(t, X25519, 3)
	me, _ := GenerateIdentity(X25519)
	kr, _ := NewKeyring(me, 0)
	kr.AddPeer(rs...)
	for _, a := range []AEAD{0x0001, 0x0007, 0xffff} {
		if err := kr.Warm(a); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Warm(%s): %v, want %v", a, err, ErrUnsupported)
		}
	}
	if n := kr.agreements.Load(); n != 0 || kr.channels.Len() != 0 {
		t.Errorf("Warm with unsupported AEADs did %d key agreements and cached %d channel keys", n, kr.channels.Len())
	}
}
