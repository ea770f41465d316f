package fanseal

import (
	"bytes"
	"context"
	"crypto/ecdh"
	stdhpke "crypto/hpke"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// openWithStdlib opens every HPKE and shared stanza of env with Go's
// crypto/hpke and the identity it names, and returns the file key they
// all hold.
func openWithStdlib(t *testing.T, env []byte, ids []*Identity) []byte {
	t.Helper()
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
		priv, err := ecdh.X25519().NewPrivateKey(id.priv)
		if err != nil {
			t.Fatal(err)
		}
		sk, _ := stdhpke.NewDHKEMPrivateKey(priv)
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

// TestBatchedStanzas seals for 19 X25519 recipients (passes of 7, 6 and
// 6 lanes) with every strategy that batches, and opens every stanza with
// crypto/hpke. On an IFMA CPU the agreements must have run in batches.
func TestBatchedStanzas(t *testing.T) {
	ids, rs := identities(t, X25519, 19)
	for _, st := range []Strategy{Parallel, Shared, SharedParallel, Precomputed, Channel} {
		t.Run("strategy="+st.String(), func(t *testing.T) {
			s := &Sealer{Strategy: st}
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
				if x25519x8.Accelerated() && batchedAgreements.Load()-before < 20 {
					t.Fatalf("refills computed %d agreements in batches, want 20", batchedAgreements.Load()-before)
				}
				s.Precomputer = p
			case Channel:
				me, _ := GenerateIdentity(X25519)
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
				want = 15 + 4 // the HPKE stanzas, and the channel keys' warm-up
			}
			if st == Precomputed {
				// The pools refill in the background meanwhile.
				batched = min(batched, want)
			}
			if x25519x8.Accelerated() && batched != want {
				t.Fatalf("%d agreements in batches, want %d", batched, want)
			}
			if !x25519x8.Accelerated() && batched != 0 {
				t.Fatalf("%d agreements in batches without IFMA", batched)
			}
			if key := openWithStdlib(t, env, ids); st != Channel && key == nil {
				t.Fatal("no stanza opened")
			}
			for _, id := range ids[4:] {
				mustOpen(t, env, []byte("payload"), id)
			}
		})
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
		_, err := (&Sealer{Strategy: st}).SealBytes([]byte("x"), rs...)
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

// TestKeyringWarm warms a keyring's channel keys in batches: sealing to
// its peers afterwards does no key agreement, every peer opens, and a
// low-order peer is named in Warm's error without stopping the others.
func TestKeyringWarm(t *testing.T) {
	for _, s := range []Suite{X25519, P256} {
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
			if batched := batchedAgreements.Load() - before; s == X25519 && x25519x8.Accelerated() && batched != 10 {
				t.Fatalf("%d agreements in batches, want 10", batched)
			}
			if err := kr.Warm(AES256GCM); err != nil || kr.agreements.Load() != 10 {
				t.Fatalf("warming again: %v, %d agreements", err, kr.agreements.Load())
			}
			env := mustSeal(t, &Sealer{Strategy: Channel, Keyring: kr}, []byte("view"), rs...)
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
		mustSeal(t, &Sealer{Strategy: Channel, Keyring: kr}, []byte("x"), rs...)
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
