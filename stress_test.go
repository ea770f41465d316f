package fanseal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fanseal/fanseal/internal/format"
)

// A stressParty is one participant of TestStress: an identity, a keyring
// to seal channel stanzas with and one to open them with (so that
// receivers can move to a new epoch before senders do), an Opener, and a
// channel Sealer.
type stressParty struct {
	id       *Identity
	send     *Keyring
	recv     *Keyring
	opener   *Opener
	channel  *Sealer
	isolated *Opener // the recv keyring, without the session cache
}

// The removal state of TestStress, in one word: a generation, bumped at
// every change, and the party whose channels are removed, plus one (0:
// none).
func removal(gen uint64, party int) uint64 { return gen<<8 | uint64(party+1) }

// TestStress: many goroutines share Sealers of several strategies
// (channel, precomputed, shared-parallel, anonymous parallel, sequential),
// one Opener per party, a SessionCache shared by some Sealers and Openers,
// a Precomputer and the parties' Keyrings, while a rotator moves every
// keyring to new epochs (receivers before senders), purges the session
// cache, and removes a party from every keyring and adds it back. Every
// envelope opens to its plaintext for each of its recipients, and for no
// other party (ErrNotRecipient); once a party is removed from the senders'
// keyrings, no envelope sealed after has a channel stanza to or from it,
// and once the receivers have removed it, its channel envelopes sealed
// before no longer open. No goroutine outlives the test.
//
// It runs for about 2 s under -short and 10 s otherwise, and at least
// until two epoch rotations and one removal have happened.
func TestStress(t *testing.T) {
	duration := 10 * time.Second
	if testing.Short() {
		duration = 2 * time.Second
	}
	const parties, workers = 6, 8
	ids, rs := identities(t, X25519, parties)
	cache := NewSessionCache(64, time.Minute)
	pre, err := NewPrecomputer(PrecomputeOptions{PoolSize: 4, Workers: 2}, rs...)
	if err != nil {
		t.Fatal(err)
	}
	ps := make([]*stressParty, parties)
	for i := range ps {
		p := &stressParty{id: ids[i]}
		p.send, _ = NewKeyring(ids[i], 64)
		p.recv, _ = NewKeyring(ids[i], 64)
		for j, r := range rs {
			if j != i {
				p.send.AddPeer(r)
				p.recv.AddPeer(r)
			}
		}
		p.opener = &Opener{Keyring: p.recv, PayloadWorkers: 1 + i%2}
		if i%2 == 0 {
			p.opener.Cache = cache
		}
		p.isolated = &Opener{Keyring: p.recv}
		p.channel = &Sealer{Strategy: Channel, Keyring: p.send, Cache: cache, Parallelism: 2}
		ps[i] = p
	}
	shared := []*Sealer{
		{Strategy: Precomputed, Precomputer: pre, Parallelism: 2},
		{Strategy: SharedParallel, Cache: cache, Parallelism: 2},
		{Strategy: Parallel, Anonymous: true, Parallelism: 3},
		{Strategy: Sequential},
	}

	var (
		// phase: each worker holds it for reading over one seal and its
		// opens; the rotator takes it to wait for those in flight.
		phase       sync.RWMutex
		state       atomic.Uint64 // removal(gen, party)
		units       atomic.Uint64 // envelopes sealed and opened by all
		checked     atomic.Uint64 // envelopes sealed while a party was removed
		perStrategy [6]atomic.Uint64
		tick        = make(chan struct{}, 1)
		failed      atomic.Bool
	)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fail := func(format string, a ...any) {
		t.Helper()
		t.Errorf(format, a...)
		failed.Store(true)
		cancel()
	}

	// One envelope: sealed by a random party with a random strategy to a
	// random set of parties, opened by every party.
	unit := func(rng *rand.Rand) {
		phase.RLock()
		defer phase.RUnlock()
		from := rng.IntN(parties)
		var sealer *Sealer
		if k := rng.IntN(len(shared) + 2); k < len(shared) {
			sealer = shared[k]
		} else {
			sealer = ps[from].channel // twice as often: the keyrings are the point
		}
		to := rng.Perm(parties)[:1+rng.IntN(parties)]
		recipients := make([]*Recipient, len(to))
		for i, j := range to {
			recipients[i] = rs[j]
		}
		pt := make([]byte, rng.IntN(4096))
		if rng.IntN(16) == 0 {
			pt = make([]byte, 64<<10+rng.IntN(4096)) // two chunks
		}
		for i := range pt {
			pt[i] = byte(rng.Uint32())
		}
		before := state.Load()
		env, err := sealer.SealBytes(pt, recipients...)
		if err != nil {
			fail("%v sealing for %v: %v", sealer.Strategy, to, err)
			return
		}
		perStrategy[sealer.Strategy].Add(1)
		if removed := int(before&0xff) - 1; removed >= 0 && state.Load() == before {
			// Sealed wholly while the party was out of the senders'
			// keyrings: no channel stanza to or from it.
			checked.Add(1)
			if err := noChannelWith(env, rs[removed]); err != nil {
				fail("%v, from %d to %v, with %d removed: %v", sealer.Strategy, from, to, removed, err)
				return
			}
		}
		for q, p := range ps {
			var got []byte
			var err error
			if rng.IntN(2) == 0 {
				got, err = p.opener.OpenBytes(env, p.id)
			} else {
				var r io.Reader
				if r, err = p.opener.Open(bytes.NewReader(env), p.id); err == nil {
					got, err = io.ReadAll(r)
				}
			}
			switch {
			case !slices.Contains(to, q):
				if !errors.Is(err, ErrNotRecipient) {
					fail("%v from %d to %v: party %d, not a recipient, got %d bytes, %v", sealer.Strategy, from, to, q, len(got), err)
					return
				}
			case err != nil:
				fail("%v from %d to %v: recipient %d: %v", sealer.Strategy, from, to, q, err)
				return
			case !bytes.Equal(got, pt):
				fail("%v from %d to %v: recipient %d got %d bytes that differ from the %d sealed", sealer.Strategy, from, to, q, len(got), len(pt))
				return
			}
		}
		if units.Add(1)%32 == 0 {
			select {
			case tick <- struct{}{}:
			default:
			}
		}
	}

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 20))
			for ctx.Err() == nil {
				unit(rng)
			}
		})
	}

	// The rotator: an epoch rotation at every tick, and every third a
	// purge of the session cache and the removal of a party.
	var rotations, removals int
	barrier := func() { phase.Lock(); phase.Unlock() }
	epoch := uint32(0)
	rotate := func() {
		epoch++
		for _, p := range ps {
			p.recv.SetEpoch(epoch) // receivers first: they take epoch − 1 too
		}
		for _, p := range ps {
			p.send.SetEpoch(epoch)
		}
		// Envelopes sealed at epoch − 1 are all opened before the
		// receivers move on again.
		barrier()
		rotations++
	}
	remove := func(l int) error {
		j := (l + 1) % parties
		L, J := ps[l], ps[j]
		// Channel envelopes between l and j, sealed before the removal.
		fromL, err := L.channel.SealBytes([]byte("before"), rs[j])
		if err != nil {
			return err
		}
		toL, err := J.channel.SealBytes([]byte("before"), rs[l])
		if err != nil {
			return err
		}
		for _, c := range []struct {
			env    []byte
			opener *Opener
			id     *Identity
		}{{fromL, J.isolated, J.id}, {toL, L.isolated, L.id}} {
			if err := channelOnly(c.env); err != nil {
				return err
			}
			if _, err := c.opener.OpenBytes(c.env, c.id); err != nil {
				return fmt.Errorf("a channel envelope before the removal: %v", err)
			}
		}
		// Senders first: from now on nothing is sealed over a channel to
		// or from l.
		others := slices.Delete(slices.Clone(rs), l, l+1)
		for i, p := range ps {
			if i != l {
				p.send.RemovePeer(rs[l])
			}
		}
		L.send.RemovePeer(others...)
		pre.Remove(rs[l])
		gen := state.Load() >> 8
		state.Store(removal(gen+1, l))
		for _, s := range []*Sealer{L.channel, J.channel} {
			to := rs[j]
			if s == J.channel {
				to = rs[l]
			}
			env, err := s.SealBytes([]byte("after"), to)
			if err != nil {
				return err
			}
			if err := noChannelWith(env, rs[l]); err != nil {
				return fmt.Errorf("sealed after the removal: %v", err)
			}
		}
		// Then receivers, once every envelope sealed before is opened.
		barrier()
		for i, p := range ps {
			if i != l {
				p.recv.RemovePeer(rs[l])
			}
		}
		L.recv.RemovePeer(others...)
		if _, err := J.isolated.OpenBytes(fromL, J.id); !errors.Is(err, ErrNotRecipient) {
			return fmt.Errorf("party %d opened a channel envelope from removed party %d: %v", j, l, err)
		}
		if _, err := L.isolated.OpenBytes(toL, L.id); !errors.Is(err, ErrNotRecipient) {
			return fmt.Errorf("removed party %d opened a channel envelope from %d: %v", l, j, err)
		}
		// No receiver keeps a channel key with l. (A sender may: a seal
		// in flight during RemovePeer caches its key again, which no
		// later seal uses.)
		for i, p := range ps {
			for _, id := range append(p.recv.channels.Keys(), p.recv.pending.Keys()...) {
				if i == l || id.peer.equal(rs[l]) {
					return fmt.Errorf("party %d keeps a channel key with removed party %d", i, l)
				}
			}
		}
		// Back: receivers first, then senders.
		for i, p := range ps {
			if i != l {
				p.recv.AddPeer(rs[l])
			}
		}
		L.recv.AddPeer(others...)
		state.Store(removal(gen+2, -1))
		for i, p := range ps {
			if i != l {
				p.send.AddPeer(rs[l])
			}
		}
		L.send.AddPeer(others...)
		if err := pre.Add(rs[l]); err != nil {
			return err
		}
		again, err := L.channel.SealBytes([]byte("again"), rs[j])
		if err != nil {
			return err
		}
		if err := channelOnly(again); err != nil {
			return fmt.Errorf("after adding party %d back: %v", l, err)
		}
		removals++
		return nil
	}
	rotatorDone := make(chan struct{})
	enough := make(chan struct{})
	go func() {
		defer close(rotatorDone)
		reached := false
		for n := 0; ; n++ {
			select {
			case <-tick:
			case <-ctx.Done():
				return
			}
			rotate()
			if n%3 == 2 {
				cache.Purge()
				if err := remove(n / 3 % parties); err != nil {
					fail("removal: %v", err)
					return
				}
			}
			if !reached && rotations >= 2 && removals >= 1 {
				close(enough)
				reached = true
			}
		}
	}()

	select {
	case <-time.After(duration):
	case <-ctx.Done():
	}
	select {
	case <-enough:
	case <-ctx.Done():
	}
	cancel()
	wg.Wait()
	<-rotatorDone
	pre.Close()
	if failed.Load() {
		return
	}
	var counts []string
	for _, s := range []Strategy{Channel, Precomputed, SharedParallel, Parallel, Sequential} {
		n := perStrategy[s].Load()
		if n == 0 {
			t.Errorf("no envelope sealed with %v", s)
		}
		counts = append(counts, fmt.Sprintf("%v %d", s, n))
	}
	t.Logf("%d envelopes (%s), %d epochs, %d removals, %d sealed while a party was removed", units.Load(), counts, rotations, removals, checked.Load())
	goleak.VerifyNone(t)
}

// noChannelWith returns an error if env holds a channel stanza to or from
// r.
func noChannelWith(env []byte, r *Recipient) error {
	h, _, err := format.ParseHeader(env)
	if err != nil {
		return err
	}
	for st := range h.Stanzas() {
		if st.Type != format.StanzaChannel {
			continue
		}
		c, err := format.ParseChannel(st.Body)
		if err != nil {
			return err
		}
		if bytes.Equal(c.KeyID, r.id[:]) || bytes.Equal(c.SenderID, r.id[:]) {
			return fmt.Errorf("stanza %d is a channel stanza from %x to %x", st.Index, c.SenderID, c.KeyID)
		}
	}
	return nil
}

// channelOnly returns an error unless every stanza of env is a channel
// stanza.
func channelOnly(env []byte) error {
	h, _, err := format.ParseHeader(env)
	if err != nil {
		return err
	}
	for st := range h.Stanzas() {
		if st.Type != format.StanzaChannel {
			return fmt.Errorf("stanza %d has type %d, not a channel stanza", st.Index, st.Type)
		}
	}
	return nil
}
