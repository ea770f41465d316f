package fanseal

import (
	"bytes"
	"context"
	"crypto/cipher"
	"crypto/ecdh"
	stdhpke "crypto/hpke"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/race"
)

func stanzasOf(t *testing.T, env []byte) []format.Stanza {
	t.Helper()
	var out []format.Stanza
	for st := range readHeader(t, env).Stanzas() {
		out = append(out, st)
	}
	return out
}

func TestSharedEphemeral(t *testing.T) {
	pids, prs := identities(t, P256, 4)
	xids, xrs := identities(t, X25519, 3)
	rs := append(append([]*Recipient{}, prs...), xrs...)
	ids := append(append([]*Identity{}, pids...), xids...)
	for _, st := range []Strategy{Shared, SharedParallel} {
		env := mustSeal(t, &Sealer{Identified: true, Strategy: st}, []byte("k"), rs...)
		stanzas := stanzasOf(t, env)
		var eph = map[uint16][]byte{}
		shared := 0
		for _, s := range stanzas {
			switch s.Type {
			case format.StanzaEphemeral:
				kem, enc, err := format.ParseEphemeral(s.Body)
				if err != nil {
					t.Fatal(err)
				}
				eph[kem] = enc
			case format.StanzaShared:
				shared++
			default:
				t.Fatalf("stanza type %d in a shared envelope", s.Type)
			}
		}
		if len(eph) != 2 || shared != 7 || len(stanzas) != 9 {
			t.Fatalf("%s: %d ephemeral keys, %d shared stanzas", st, len(eph), shared)
		}
		for i, id := range ids {
			mustOpen(t, env, []byte("k"), id)
			_ = i
		}
		// Each shared stanza is a standard HPKE ciphertext under the
		// envelope's ephemeral key.
		preamble := env[:format.PreambleSize]
		for _, s := range stanzas {
			if s.Type != format.StanzaShared {
				continue
			}
			hs, _ := format.ParseShared(s.Body, false)
			var ident *Identity
			for _, id := range ids {
				if bytes.Equal(hs.KeyID, id.r.id[:]) {
					ident = id
				}
			}
			curve := ecdh.P256()
			if ident.suite == X25519 {
				curve = ecdh.X25519()
			}
			priv, _ := curve.NewPrivateKey(ident.priv)
			sk, _ := stdhpke.NewDHKEMPrivateKey(priv)
			r, err := stdhpke.NewRecipient(eph[hs.KEM], sk, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), []byte("fanseal/v1 file key"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Open(preamble, hs.CT); err != nil {
				t.Fatalf("crypto/hpke cannot open a shared stanza: %v", err)
			}
		}
		// The ephemeral key is stored once: the envelope is smaller than
		// one with a key per stanza.
		if plain := mustSeal(t, &Sealer{Identified: true}, []byte("k"), rs...); len(env) >= len(plain) {
			t.Fatalf("shared envelope %d bytes, per-stanza %d", len(env), len(plain))
		}
	}
	// A tampered ephemeral key fails every stanza that uses it.
	env := mustSeal(t, &Sealer{Identified: true, Strategy: Shared}, []byte("k"), prs...)
	for _, flip := range []int{format.PreambleSize + 3 + 2 + 10, format.PreambleSize + 3 + 2 + 64} {
		bad := bytes.Clone(env)
		bad[flip] ^= 0x01
		for _, id := range pids {
			if _, err := OpenBytes(bad, id); !errors.Is(err, ErrAuthentication) {
				t.Fatalf("tampered ephemeral key (byte %d): %v, want ErrAuthentication", flip, err)
			}
		}
	}
	// Without its ephemeral stanza, a shared stanza is malformed.
	st := stanzasOf(t, env)
	noEph := bytes.Clone(env[:format.PreambleSize])
	binary.BigEndian.PutUint16(noEph[27:], uint16(len(st)-1))
	noEph = append(noEph, env[format.PreambleSize+format.StanzaSize(len(st[0].Body)):]...)
	if _, err := OpenBytes(noEph, pids[0]); !errors.Is(err, ErrMalformed) {
		t.Fatalf("shared stanza without ephemeral: %v", err)
	}
}

func encsOf(t *testing.T, env []byte) [][]byte {
	var out [][]byte
	for _, s := range stanzasOf(t, env) {
		if s.Type == format.StanzaHPKE {
			hs, err := format.ParseHPKE(s.Body, false)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, hs.Enc)
		}
	}
	return out
}

// TestPrecomputeUseOnce seals concurrently from several goroutines while
// the pool refills: no ephemeral key may ever appear twice.
func TestPrecomputeUseOnce(t *testing.T) {
	ids, rs := identities(t, X25519, 3)
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 4, Workers: 2}, rs...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.WaitFull(ctx); err != nil {
		t.Fatal(err)
	}
	if p.Ready() != 12 {
		t.Fatalf("Ready() = %d, want 12", p.Ready())
	}
	ready := readyEncs(p)
	if len(ready) < 8 {
		t.Fatalf("%d ready items seen in the pools", len(ready))
	}
	sealer := &Sealer{Identified: true, Strategy: Precomputed, Precomputer: p}
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				env, err := sealer.SealBytes([]byte("k"), rs...)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := OpenBytes(env, ids[g%3]); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, enc := range encsOf(t, env) {
					if seen[string(enc)] {
						t.Errorf("ephemeral key %x used twice", enc[:8])
					}
					seen[string(enc)] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 8*20*3 {
		t.Fatalf("%d distinct ephemeral keys for %d stanzas", len(seen), 8*20*3)
	}
	// The pools are FIFO and 160 seals per recipient drain them many
	// times over, so every item ready at the start went into an envelope.
	for enc := range ready {
		if !seen[enc] {
			t.Fatalf("precomputed ephemeral key %x never used: take did not hand out the ready items", enc[:8])
		}
	}
}

// readyEncs returns the ephemeral keys of the items ready in p's pools. It
// takes each pool's items and puts them back in order; an item that no
// longer fits (a worker filled the slot meanwhile) is left out.
func readyEncs(p *Precomputer) map[string]bool {
	p.mu.Lock()
	list := slices.Clone(p.list)
	p.mu.Unlock()
	encs := map[string]bool{}
	for _, h := range list {
		var items []*precomputed
	drain:
		for {
			select {
			case it := <-h.pool:
				items = append(items, it)
			default:
				break drain
			}
		}
		for _, it := range items {
			select {
			case h.pool <- it:
				encs[string(it.enc)] = true
			default:
			}
		}
	}
	return encs
}

func TestPrecomputerHotSet(t *testing.T) {
	_, rs := identities(t, P256, 3)
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 2, MaxRecipients: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if p.take(rs[0], AES256GCM) != nil {
		t.Fatal("item for a cold recipient")
	}
	if err := p.Add(rs[0], rs[1]); err != nil {
		t.Fatal(err)
	}
	if err := p.Add(rs[2]); !errors.Is(err, ErrRecipientCount) {
		t.Fatalf("third hot recipient past the bound: %v", err)
	}
	p.WaitFull(ctx)
	if p.take(rs[0], AES256GCM) == nil || p.take(rs[0], ChaCha20Poly1305) != nil {
		t.Fatal("take ignores the pool or the AEAD")
	}
	p.Remove(rs[0])
	if p.take(rs[0], AES256GCM) != nil {
		t.Fatal("item for a removed recipient")
	}
	if err := p.Add(rs[2]); err != nil {
		t.Fatalf("adding after a removal: %v", err)
	}
	p.WaitFull(ctx)
	if p.Ready() != 4 {
		t.Fatalf("Ready() = %d, want 4", p.Ready())
	}
	p.Close()
	p.Close()
	if err := p.Add(rs[0]); !errors.Is(err, ErrClosed) {
		t.Fatalf("Add after Close: %v", err)
	}
	// A cold envelope still seals through a closed Precomputer.
	mustSeal(t, &Sealer{Identified: true, Strategy: Precomputed, Precomputer: p}, nil, rs[0])
}

// TestPrecomputeLookupAllocs checks that finding a recipient's pool, on
// every sealed stanza, does not copy the recipient's key.
func TestPrecomputeLookupAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	_, rs := identities(t, MLKEM768X25519, 1)
	p, err := NewPrecomputer(PrecomputeOptions{}, rs...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Remove(rs...) // an empty lookup: nothing is taken or refilled
	if n := testing.AllocsPerRun(100, func() { p.take(rs[0], AES256GCM) }); n != 0 {
		t.Errorf("looking up a %d-byte key allocates %.1f times", len(rs[0].raw), n)
	}
}

func TestPrecomputeBudget(t *testing.T) {
	_, rs := identities(t, X25519, 2)
	start := time.Now()
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 1000, Workers: 2, MaxPerSecond: 50}, rs...)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	p.Close()
	// The budget hands out one slot every 20 ms from the start; a loaded
	// machine may oversleep, so the bound follows the time that passed.
	elapsed := time.Since(start)
	limit := 1 + uint64(elapsed/(20*time.Millisecond))
	if n := p.computed.Load(); n > limit {
		t.Fatalf("computed %d items in %v under a budget of 50 per second (at most %d)", n, elapsed, limit)
	}
}

func newKeyrings(t *testing.T, s Suite) (sender, recipient *Keyring, ids []*Identity) {
	t.Helper()
	ids, _ = identities(t, s, 3)
	me, _ := GenerateIdentity(s)
	sender, err := NewKeyring(me, 0)
	if err != nil {
		t.Fatal(err)
	}
	sender.AddPeer(ids[0].Recipient(), ids[1].Recipient())
	recipient, _ = NewKeyring(ids[0], 0)
	recipient.AddPeer(me.Recipient())
	return sender, recipient, ids
}

func TestChannel(t *testing.T) {
	for _, s := range []Suite{P256, X25519, Secp256k1} {
		t.Run("suite="+s.String(), func(t *testing.T) {
			sender, recipient, ids := newKeyrings(t, s)
			sealer := &Sealer{Identified: true, Strategy: Channel, Keyring: sender}
			opener := &Opener{Keyring: recipient}
			var counters []uint64
			for i := range 10 {
				env := mustSeal(t, sealer, []byte("view"), ids[0].Recipient(), ids[1].Recipient(), ids[2].Recipient())
				types := []byte{}
				for _, st := range stanzasOf(t, env) {
					types = append(types, st.Type)
					if st.Type == format.StanzaChannel {
						cs, _ := format.ParseChannel(st.Body)
						counters = append(counters, cs.Counter)
					}
				}
				if !bytes.Equal(types, []byte{4, 4, 1}) {
					t.Fatalf("stanza types %v, want channel, channel, HPKE", types)
				}
				got, err := opener.OpenBytes(env, ids[0])
				if err != nil || string(got) != "view" {
					t.Fatalf("envelope %d: %v", i, err)
				}
				mustOpen(t, env, []byte("view"), ids[2]) // the non-peer needs no keyring
				if _, err := OpenBytes(env, ids[0]); !errors.Is(err, ErrNotRecipient) {
					t.Fatalf("peer without its keyring: %v", err)
				}
			}
			if sender.agreements.Load() != 2 || recipient.agreements.Load() != 1 {
				t.Fatalf("key agreements: sender %d (want 2), recipient %d (want 1)", sender.agreements.Load(), recipient.agreements.Load())
			}
			for i := 1; i < len(counters); i++ {
				if counters[i] <= counters[i-1] {
					t.Fatal("channel nonces repeat")
				}
			}
		})
	}
}

// TestChannelCollidingKeyIDs gives two peers the same key identifier on
// each side: the sender must not reuse one peer's channel key for the
// other, and the recipient must try every sender with the identifier.
func TestChannelCollidingKeyIDs(t *testing.T) {
	ids, rs := identities(t, P256, 3)
	me, _ := GenerateIdentity(P256)
	// b claims a's identifier; x, another peer of b's, claims me's.
	b := *rs[1]
	b.id = rs[0].id
	bIdent := *ids[1]
	bIdent.r = &b
	x := *rs[2]
	x.id = me.r.id

	sender, _ := NewKeyring(me, 0)
	sender.AddPeer(rs[0], &b)
	ringA, _ := NewKeyring(ids[0], 0)
	ringA.AddPeer(me.Recipient())
	ringB, _ := NewKeyring(&bIdent, 0)
	ringB.AddPeer(&x, me.Recipient())

	sealer := &Sealer{Identified: true, Strategy: Channel, Keyring: sender}
	if _, err := sealer.SealBytes([]byte("view"), rs[0], &b); !errors.Is(err, ErrDuplicateRecipient) {
		t.Fatalf("two peers with one identifier in one envelope: %v", err)
	}
	for _, tc := range []struct {
		name string
		to   *Recipient
		ring *Keyring
		id   *Identity
	}{{"a", rs[0], ringA, ids[0]}, {"b", &b, ringB, &bIdent}} {
		env := mustSeal(t, sealer, []byte("view"), tc.to)
		got, err := (&Opener{Keyring: tc.ring}).OpenBytes(env, tc.id)
		if err != nil || string(got) != "view" {
			t.Fatalf("peer %s: %q, %v", tc.name, got, err)
		}
	}
	if sender.agreements.Load() != 2 {
		t.Fatalf("sender did %d key agreements for two peers, want 2", sender.agreements.Load())
	}
	if n := ringB.agreements.Load(); n != 2 {
		t.Fatalf("peer b did %d key agreements, want 2 (both senders with the identifier)", n)
	}
}

func TestChannelConcurrentFirstUse(t *testing.T) {
	sender, recipient, ids := newKeyrings(t, X25519)
	sealer := &Sealer{Identified: true, Strategy: Channel, Keyring: sender}
	envs := make([][]byte, 32)
	var wg sync.WaitGroup
	for i := range envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			envs[i], _ = sealer.SealBytes([]byte("x"), ids[0].Recipient())
		}()
	}
	wg.Wait()
	for i := range envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := (&Opener{Keyring: recipient}).OpenBytes(envs[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if sender.agreements.Load() != 1 || recipient.agreements.Load() != 1 {
		t.Fatalf("concurrent first use: %d and %d key agreements, want 1 and 1", sender.agreements.Load(), recipient.agreements.Load())
	}
}

func TestChannelEpochsAndPeers(t *testing.T) {
	sender, recipient, ids := newKeyrings(t, P256)
	sealer := &Sealer{Identified: true, Strategy: Channel, Keyring: sender}
	opener := &Opener{Keyring: recipient}
	r0 := ids[0].Recipient()
	sender.SetEpoch(1)
	env := mustSeal(t, sealer, []byte("x"), r0)
	_, err := opener.OpenBytes(env)
	if !errors.Is(err, ErrNotRecipient) || !strings.Contains(err.Error(), "epoch 1") {
		t.Fatalf("future epoch: %v", err)
	}
	recipient.SetEpoch(1)
	if _, err := opener.OpenBytes(env); err != nil {
		t.Fatalf("same epoch: %v", err)
	}
	recipient.SetEpoch(2)
	if _, err := opener.OpenBytes(env); err != nil {
		t.Fatalf("previous epoch: %v", err)
	}
	recipient.SetEpoch(3)
	if _, err := opener.OpenBytes(env); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("epoch two behind: %v", err)
	}
	// The recipient forgets the sender.
	recipient.SetEpoch(1)
	recipient.RemovePeer(sender.Identity().Recipient())
	_, err = opener.OpenBytes(env)
	if !errors.Is(err, ErrNotRecipient) || !strings.Contains(err.Error(), "unknown sender") {
		t.Fatalf("removed sender: %v", err)
	}
	// The sender forgets the recipient: it gets an ordinary stanza.
	sender.RemovePeer(r0)
	env = mustSeal(t, sealer, []byte("x"), r0)
	if st := stanzasOf(t, env); st[0].Type != format.StanzaHPKE {
		t.Fatalf("removed peer got stanza type %d", st[0].Type)
	}
	mustOpen(t, env, []byte("x"), ids[0])
	if err := sender.AddPeer(mustRecipient(t, X25519)); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("peer of another suite: %v", err)
	}
	if _, err := (&Sealer{Identified: true, Strategy: Channel, Keyring: sender, Anonymous: true}).SealBytes(nil, r0); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("anonymous channel: %v", err)
	}
	if _, err := (&Sealer{Identified: true, Strategy: Channel}).SealBytes(nil, r0); err == nil {
		t.Fatal("Channel strategy without a keyring")
	}
}

func mustRecipient(t *testing.T, s Suite) *Recipient {
	_, rs := identities(t, s, 1)
	return rs[0]
}

func TestSessionCache(t *testing.T) {
	ids, rs := identities(t, P256, 3)
	// (a) The sealer is a recipient: its own open does no key agreement.
	c := NewSessionCache(0, 0)
	env := mustSeal(t, &Sealer{Identified: true, Cache: c}, []byte("own"), rs...)
	before := keyAgreements.Load()
	got, err := (&Opener{Cache: c}).OpenBytes(env, ids[1])
	if err != nil || string(got) != "own" || keyAgreements.Load() != before {
		t.Fatalf("own envelope: %v, %d key agreements", err, keyAgreements.Load()-before)
	}
	// (b) A repeated open hits.
	c2 := NewSessionCache(0, 0)
	o := &Opener{Cache: c2}
	env2 := mustSeal(t, &Sealer{Identified: true}, []byte("twice"), rs...)
	before = keyAgreements.Load()
	o.OpenBytes(env2, ids[2])
	r, err := o.Open(bytes.NewReader(env2), ids[2])
	if err != nil {
		t.Fatal(err)
	}
	if got := keyAgreements.Load() - before; got != 1 {
		t.Fatalf("two opens did %d key agreements, want 1", got)
	}
	if b, _ := readAllPartial(r); string(b) != "twice" {
		t.Fatal("cached open returned the wrong payload")
	}
	// Expiry.
	now := time.Now()
	c2.now = func() time.Time { return now.Add(time.Minute) }
	before = keyAgreements.Load()
	o.OpenBytes(env2, ids[2])
	if keyAgreements.Load()-before != 1 {
		t.Fatal("an expired entry was used")
	}
	// A cached key is used only for its own header.
	bad := bytes.Clone(env2)
	bad[format.PreambleSize+5] ^= 1 // a key identifier byte, same MAC
	if _, err := o.OpenBytes(bad, ids[1]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("tampered header with a cached MAC: %v", err)
	}
	// Bounded under a flood.
	small := NewSessionCache(50, time.Hour)
	s := &Sealer{Identified: true, Cache: small}
	for range 200 {
		mustSeal(t, s, nil, rs[0])
	}
	if small.Len() != 50 {
		t.Fatalf("cache holds %d entries, bound 50", small.Len())
	}
}

func TestSessionCacheConcurrent(t *testing.T) {
	ids, rs := identities(t, X25519, 2)
	c := NewSessionCache(16, time.Hour)
	s, o := &Sealer{Identified: true, Cache: c}, &Opener{Cache: c}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				env, err := s.SealBytes([]byte("x"), rs...)
				if err == nil {
					_, err = o.OpenBytes(env, ids[1])
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestParallelPayload seals large payloads with several payload workers:
// the output opens with one worker and with many.
func TestParallelPayload(t *testing.T) {
	ids, rs := identities(t, X25519, 1)
	pt := randomBytes(5*65536 + 123)
	for _, w := range []int{1, 2, 5} {
		var buf bytes.Buffer
		wc, err := (&Sealer{Identified: true, PayloadWorkers: w}).Seal(&buf, rs...)
		if err != nil {
			t.Fatal(err)
		}
		wc.Write(pt)
		wc.Close()
		for _, rw := range []int{1, 3} {
			r, err := (&Opener{PayloadWorkers: rw}).Open(bytes.NewReader(buf.Bytes()), ids[0])
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAllPartial(r)
			if err.Error() != "EOF" || !bytes.Equal(got, pt) {
				t.Fatalf("workers %d/%d: %v", w, rw, err)
			}
			one, err := (&Opener{PayloadWorkers: rw}).OpenBytes(buf.Bytes(), ids[0])
			if err != nil || !bytes.Equal(one, pt) {
				t.Fatalf("OpenBytes with %d workers: %v", rw, err)
			}
		}
	}
}

// TestKeyringCacheBounded floods a keyring with peers: its channel-key
// cache never holds more than its bound, and evicted keys are recomputed.
func TestKeyringCacheBounded(t *testing.T) {
	_, rs := identities(t, X25519, 12)
	me, _ := GenerateIdentity(X25519)
	kr, err := NewKeyring(me, 4)
	if err != nil {
		t.Fatal(err)
	}
	kr.AddPeer(rs...)
	sealer := &Sealer{Identified: true, Strategy: Channel, Keyring: kr}
	for round := range 2 {
		for _, r := range rs {
			mustSeal(t, sealer, []byte("x"), r)
			if n := kr.channels.Len(); n > 4 {
				t.Fatalf("round %d: %d cached channel keys, bound 4", round, n)
			}
			checkSendingIndex(t, kr)
		}
	}
	if got := kr.agreements.Load(); got != 24 {
		t.Fatalf("%d key agreements for 12 peers twice through a cache of 4, want 24", got)
	}
}

// checkSendingIndex: the Keyring's index of sending keys holds only keys
// of the current epoch and salt that its cache holds.
func checkSendingIndex(t *testing.T, kr *Keyring) {
	t.Helper()
	kr.sendMu.Lock()
	defer kr.sendMu.Unlock()
	for s, a := range kr.sending {
		if c, ok := kr.channels.Peek(channelID{peer: s.peer, send: true, epoch: kr.Epoch(), salt: kr.salt, aead: s.aead}); !ok || c != a {
			t.Fatalf("the sending index holds a key for %x that the cache does not", s.peer.id)
		}
	}
}

// TestKeyringSendingIndex: once a peer's sending key is cached, a Channel
// seal finds it beside the peer (Keyring.senders), for the AEAD it was
// derived for only, until the epoch changes or the peer is removed.
func TestKeyringSendingIndex(t *testing.T) {
	_, rs := identities(t, P256, 3)
	me, _ := GenerateIdentity(P256)
	kr, _ := NewKeyring(me, 0)
	kr.AddPeer(rs...)
	sending := func(r *Recipient, aead AEAD) (*Recipient, cipher.AEAD) {
		ps, _, _ := kr.senders([]*Recipient{r}, aead)
		return ps[0].peer, ps[0].aead
	}
	if _, a := sending(rs[0], AES256GCM); a != nil {
		t.Fatal("a key before any was derived")
	}
	if err := kr.Warm(AES256GCM); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if _, a := sending(r, AES256GCM); a == nil {
			t.Fatalf("no sending key for %x after Warm", r.id)
		}
		if _, a := sending(r, ChaCha20Poly1305); a != nil {
			t.Fatal("a ChaCha20-Poly1305 key after warming AES-256-GCM")
		}
	}
	checkSendingIndex(t, kr)
	kr.RemovePeer(rs[0])
	if peer, _ := sending(rs[0], AES256GCM); peer != nil || len(kr.sending) != 2 {
		t.Fatalf("after RemovePeer: peer %v, %d indexed keys", peer, len(kr.sending))
	}
	kr.SetEpoch(1)
	if _, a := sending(rs[1], AES256GCM); a != nil {
		t.Fatal("a key of the epoch before")
	}
	before := kr.agreements.Load()
	mustSeal(t, &Sealer{Identified: true, Strategy: Channel, Keyring: kr}, nil, rs[1:]...)
	if kr.agreements.Load() != before+2 {
		t.Fatalf("%d key agreements for two peers in a new epoch", kr.agreements.Load()-before)
	}
	checkSendingIndex(t, kr)
}

// TestPrecomputeKeepsEveryItem: every item a worker computes reaches a
// pool. A worker must not release its reservation before its items are in
// the pool: another worker would reserve the same places meanwhile, and
// one of the two would drop what it computed (a key generation and a key
// agreement each, and the MaxPerSecond budget they used). The race needs
// takes concurrent with the workers, so the test takes for a while; it
// cannot fail on correct code.
func TestPrecomputeKeepsEveryItem(t *testing.T) {
	_, rs := identities(t, P256, 2)
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 1, Workers: 8}, rs...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	taken := uint64(0)
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		for _, r := range rs {
			if p.take(r, AES256GCM) != nil {
				taken++
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitFull(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close() // every worker has handed over what it computed
	if computed, ready := p.computed.Load(), uint64(p.Ready()); computed != taken+ready {
		t.Fatalf("%d items computed, %d taken and %d ready: %d dropped", computed, taken, ready, computed-taken-ready)
	}
}

// TestPrecomputerAddPartly: an Add that fails past MaxRecipients keeps
// the recipients before the failing one hot, and wakes the workers for
// them: their pools fill without waiting for a seal.
func TestPrecomputerAddPartly(t *testing.T) {
	_, rs := identities(t, X25519, 3)
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 2, MaxRecipients: 2}, rs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitFull(ctx); err != nil { // the workers are idle now
		t.Fatal(err)
	}
	if err := p.Add(rs[1], rs[2]); !errors.Is(err, ErrRecipientCount) {
		t.Fatalf("Add past MaxRecipients: %v", err)
	}
	if err := p.WaitFull(ctx); err != nil || p.Ready() != 4 {
		t.Fatalf("the recipient added before the failure: %d ready, %v", p.Ready(), err)
	}
}

// TestChannelFirstUseAfterFlight: an open that found no channel key in
// the caches, and reaches the derivation only after another open's
// flight derived the key (which waits in pending until that open
// authenticates), takes that key instead of deriving it again. The first
// open is held between its cache checks and its flight, the second one
// after its flight (channelHook), and the first one goes on then.
func TestChannelFirstUseAfterFlight(t *testing.T) {
	sender, recipient, ids := newKeyrings(t, X25519)
	env := mustSeal(t, &Sealer{Identified: true, Strategy: Channel, Keyring: sender}, []byte("x"), ids[0].Recipient())
	held, flown := make(chan struct{}), make(chan struct{})
	release, finish := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	channelHook = func(stage string) {
		switch n := calls.Add(1); {
		case n == 1 && stage == "flight": // the first open, before its flight
			close(held)
			<-release
		case stage == "flown" && n == 3: // the second open, after its flight
			close(flown)
			<-finish
		}
	}
	defer func() { channelHook = nil }()
	first, second := make(chan error), make(chan error)
	go func() {
		_, err := (&Opener{Keyring: recipient}).OpenBytes(env)
		first <- err
	}()
	<-held
	go func() {
		_, err := (&Opener{Keyring: recipient}).OpenBytes(env)
		second <- err
	}()
	<-flown
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	close(finish)
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if n := recipient.agreements.Load(); n != 1 {
		t.Fatalf("%d key agreements for one channel key, want 1", n)
	}
}
