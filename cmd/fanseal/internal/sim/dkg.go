package sim

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/kex"
)

// DKGOptions configure the dkg workload. Zero values select the defaults.
type DKGOptions struct {
	// Suite is the key exchange suite (default kex.Secp256k1).
	Suite kex.Suite
	// Members lists the group sizes, each run in every round (default 64
	// and 100).
	Members []int
}

// DKG returns the threshold group key exchange workload.
//
// A round of a group of N: every member generates its N−1 ephemeral key
// pairs and broadcasts them in one message (kex.NewRound); every member
// unmarshals every other member's message, derives its N−1 pairwise
// channels, seals one box for each peer, and opens the N−1 boxes
// addressed to it. Members run concurrently; the broadcast is in-process.
// The round time is from the first key generation to the last box opened.
//
// Baseline parses every public key of a message on receipt (eager), as
// the deployments did, and derives the channels one by one; Fanseal
// parses only the key it needs, at derivation (lazy), and derives all of
// a member's channels in one call (kex.Round.Channels). Both generate
// their key pairs with kex.NewRound.
//
// Faults: one member publishes a corrupt key for one victim. Lazily, only
// the victim fails, with a *kex.KeyError naming the sender; it accuses
// the sender by revealing its own key for it, and every member checks the
// accusation (kex.CheckAccusation) and blames the sender. Eagerly, every
// member finds the bad key on receipt and blames the sender at once.
func DKG(o DKGOptions) Workload {
	if o.Suite == 0 {
		o.Suite = kex.Secp256k1
	}
	if len(o.Members) == 0 {
		o.Members = []int{64, 100}
	}
	return &dkgWorkload{o}
}

type dkgWorkload struct{ o DKGOptions }

func (*dkgWorkload) Name() string { return "dkg" }

func (d *dkgWorkload) Describe() string {
	sizes := make([]string, len(d.o.Members))
	for i, n := range d.o.Members {
		sizes[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("a key exchange round of %s members, suite %s, one box per pair", strings.Join(sizes, ", "), d.o.Suite)
}

func (*dkgWorkload) rules() []Rule { return nil }

// liveBound: a round of the largest group holds, for every member, a
// key pair per peer and every member's message (N−1 keys of at most 65
// bytes), and a box per pair.
func (d *dkgWorkload) liveBound(*Config) uint64 {
	n := uint64(slices.Max(d.o.Members))
	perMember := n*(256+2*65) + n*n*65 + n*256
	return n * perMember
}

type dkgWorld struct {
	o      DKGOptions
	side   Side
	cfg    *Config
	rec    recorder
	rounds uint64
	last   map[int]time.Duration // the last round's duration, by group size
	c      dkgCounters
}

// dkgCounters are sums over every round.
type dkgCounters struct {
	rounds, boxes, expectedBoxes                 atomic.Int64
	corrupt, onReceipt, atDerivation, accusation atomic.Int64
	blames, wrongBlames, missedBlames            atomic.Int64
	expectedBlames                               atomic.Int64 // the members but the sender, over the rounds with a fault
}

func (d *dkgWorkload) newWorld(_ context.Context, side Side, cfg *Config) (world, error) {
	if cfg.Rate > 0 || cfg.Concurrency > 0 {
		return nil, errors.New("dkg runs its rounds back to back, every member at once: --rate and --concurrency do not apply")
	}
	w := &dkgWorld{o: d.o, side: side, cfg: cfg, last: map[int]time.Duration{}}
	for _, n := range d.o.Members {
		w.rec.declare(fmt.Sprintf("round n=%d", n), fmt.Sprintf("a key exchange round of %d members, end to end", n))
	}
	return w, nil
}

// run runs rounds of every group size until d has passed. A size that
// has run before starts a round only if its last round would end within
// d: an eager round of 100 members takes seconds, and must not make the
// run overrun its duration. A size that has not run yet always does, so
// that every size has a sample.
func (w *dkgWorld) run(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(d)
	for ctx.Err() == nil {
		started := false
		for _, n := range w.o.Members {
			if last, ok := w.last[n]; ok && time.Now().Add(last).After(deadline) {
				continue
			}
			t := time.Now()
			if err := w.round(ctx, n); err != nil {
				return err
			}
			w.last[n] = time.Since(t)
			started = true
		}
		if !started || !time.Now().Before(deadline) {
			break
		}
	}
	return ctx.Err()
}

// A dkgMember is one member's state in a round.
type dkgMember struct {
	round    *kex.Round
	channels []*kex.Channel // by peer; nil where none could be derived
	boxes    [][]byte       // boxes[j]: the box this member sealed for j
	blamed   uint32         // the member this one blamed, or 0
	accused  uint32         // the member this one accuses, or 0
}

func (w *dkgWorld) round(ctx context.Context, n int) error {
	w.rounds++
	g := kex.Group{Suite: w.o.Suite, Size: n, SessionID: fmt.Sprintf("sim %d/%d/%d", w.cfg.Seed, n, w.rounds)}
	// With faults, member bad publishes a corrupt key for member victim.
	var bad, victim uint32
	if w.cfg.Faults {
		bad = uint32(1 + (w.cfg.Seed+w.rounds)%uint64(n))
		victim = bad%uint32(n) + 1
		w.c.corrupt.Add(1)
	}
	members := make([]*dkgMember, n+1)
	wires := make([][]byte, n+1)
	start := time.Now()
	// Every phase runs all members at once; the broadcast completes before
	// the next phase starts.
	phase := func(f func(i uint32, m *dkgMember) error) error {
		eg, _ := errgroup.WithContext(ctx)
		for i := 1; i <= n; i++ {
			eg.Go(func() error { return f(uint32(i), members[i]) })
		}
		return eg.Wait()
	}
	// 1. Generate and broadcast.
	if err := phase(func(i uint32, _ *dkgMember) error {
		r, err := kex.NewRound(g, i)
		if err != nil {
			return err
		}
		members[i] = &dkgMember{round: r, channels: make([]*kex.Channel, n+1), boxes: make([][]byte, n+1)}
		wire := r.Message().Marshal()
		if i == bad {
			if err := corruptKey(wire, g, victim); err != nil {
				return err
			}
		}
		wires[i] = wire
		return nil
	}); err != nil {
		return err
	}
	// 2. Receive every message, derive the channels, seal a box per peer.
	// Fanseal derives them all in one call (Round.Channels: the key
	// agreements eight to a pass on an IFMA CPU); the baseline one by one.
	if err := phase(func(i uint32, m *dkgMember) error {
		var msgs []*kex.Message
		for j := uint32(1); int(j) <= n; j++ {
			if j == i {
				continue
			}
			msg, err := kex.Unmarshal(wires[j], g)
			if err != nil {
				return fmt.Errorf("member %d: %w", i, err)
			}
			if w.side == Baseline {
				if k := firstBadKey(msg, g); k != 0 {
					w.c.onReceipt.Add(1)
					m.blamed = j // the whole message is refused
					continue
				}
			}
			msgs = append(msgs, msg)
		}
		var chans []*kex.Channel
		if w.side != Baseline {
			// A failure leaves a nil channel, whose error Channel gives
			// again below.
			chans, _ = m.round.Channels(msgs)
		}
		for k, msg := range msgs {
			j := msg.SenderID
			var ch *kex.Channel
			var err error
			if chans != nil && chans[k] != nil {
				ch = chans[k]
			} else {
				ch, err = m.round.Channel(msg)
			}
			var ke *kex.KeyError
			switch {
			case errors.As(err, &ke) && ke.Sender == j && ke.Receiver == i:
				w.c.atDerivation.Add(1)
				m.accused = j
				continue
			case err != nil:
				return fmt.Errorf("member %d with %d: %w", i, j, err)
			}
			m.channels[j] = ch
			if m.boxes[j], err = ch.Seal(share(g, i, j)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	// 3. Open the boxes; check every accusation.
	if err := phase(func(i uint32, m *dkgMember) error {
		for j := uint32(1); int(j) <= n; j++ {
			if j == i || m.channels[j] == nil || members[j].boxes[i] == nil {
				continue
			}
			got, err := m.channels[j].Open(members[j].boxes[i])
			if err != nil || !bytes.Equal(got, share(g, j, i)) {
				return fmt.Errorf("member %d: box from %d: %v", i, j, err)
			}
			w.c.boxes.Add(1)
		}
		for j := uint32(1); int(j) <= n; j++ {
			accused := members[j].accused
			if accused == 0 {
				continue
			}
			revealed, err := members[j].round.Reveal(accused)
			if err != nil {
				return err
			}
			// The accuser's and the accused's messages, as broadcast.
			accuserMsg, err := kex.Unmarshal(wires[j], g)
			if err != nil {
				return err
			}
			accusedMsg, err := kex.Unmarshal(wires[accused], g)
			if err != nil {
				return err
			}
			_, err = kex.CheckAccusation(g, accuserMsg, accusedMsg, revealed)
			var ke *kex.KeyError
			if errors.As(err, &ke) && ke.Sender == accused {
				m.blamed = accused
			} else {
				return fmt.Errorf("member %d: accusation of %d by %d did not hold: %v", i, accused, j, err)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	w.rec.add(fmt.Sprintf("round n=%d", n), time.Since(start))
	w.c.rounds.Add(1)
	w.tally(members, n, bad, victim)
	return nil
}

// tally counts the blames and the boxes a round should have opened.
func (w *dkgWorld) tally(members []*dkgMember, n int, bad, victim uint32) {
	pairs := int64(n * (n - 1))
	if bad == 0 {
		w.c.expectedBoxes.Add(pairs)
		return
	}
	w.c.expectedBlames.Add(int64(n - 1))
	for i := 1; i <= n; i++ {
		switch b := members[i].blamed; {
		case uint32(i) == bad:
		case b == bad:
			w.c.blames.Add(1)
		case b != 0:
			w.c.wrongBlames.Add(1)
		default:
			w.c.missedBlames.Add(1)
		}
	}
	if members[victim].accused == bad {
		w.c.accusation.Add(1)
	}
	if w.side == Baseline && w.o.Suite == kex.Secp256k1 {
		// Everyone refused the corrupt member's message: no box with it.
		w.c.expectedBoxes.Add(pairs - 2*int64(n-1))
	} else {
		// Only the victim's pair with the corrupt member has no channel.
		w.c.expectedBoxes.Add(pairs - 2)
	}
}

// share is the box member i seals for member j.
func share(g kex.Group, i, j uint32) []byte {
	b := binary.BigEndian.AppendUint32([]byte(g.SessionID), i)
	h := sha256.Sum256(binary.BigEndian.AppendUint32(b, j))
	return h[:]
}

// corruptKey overwrites, in the encoded message wire, the key published
// for victim with bytes that are not a valid key of the suite.
func corruptKey(wire []byte, g kex.Group, victim uint32) error {
	m, err := kex.Unmarshal(wire, g) // its keys point into wire
	if err != nil {
		return err
	}
	k, ok := m.PublicKey(victim)
	if !ok {
		return fmt.Errorf("no key for member %d", victim)
	}
	if g.Suite == kex.Secp256k1 {
		k[0] = 0x02
		for i := 1; i < len(k); i++ {
			k[i] = 0xff // x ≥ p: not a field element
		}
	} else {
		clear(k) // a low-order point: the agreement is all zeros
	}
	return nil
}

// firstBadKey parses every key of msg, as the eager deployments did, and
// returns the first member whose key does not parse, or 0.
func firstBadKey(msg *kex.Message, g kex.Group) uint32 {
	for i := uint32(1); int(i) <= g.Size; i++ {
		k, ok := msg.PublicKey(i)
		if !ok {
			continue
		}
		var err error
		if g.Suite == kex.Secp256k1 {
			_, err = secp256k1.ParsePubKey(k)
		} else {
			_, err = ecdh.X25519().NewPublicKey(k)
		}
		if err != nil {
			return i
		}
	}
	return 0
}

func (w *dkgWorld) finish(context.Context) error { return nil }

func (w *dkgWorld) report(r *SideResult) {
	c := &w.c
	r.Unit = "round"
	r.Ops = int(c.rounds.Load())
	r.Latency = w.rec.sorted()
	r.count("rounds", c.rounds.Load())
	r.count("boxes opened", c.boxes.Load())
	r.check("every box that should open opened", c.boxes.Load() == c.expectedBoxes.Load(), "%d of %d", c.boxes.Load(), c.expectedBoxes.Load())
	if !w.cfg.Faults {
		return
	}
	rounds := c.rounds.Load()
	r.count("injected: corrupt keys", c.corrupt.Load())
	r.count("detected on receipt", c.onReceipt.Load())
	r.count("detected at derivation", c.atDerivation.Load())
	r.count("accusations", c.accusation.Load())
	r.count("members blaming the sender", c.blames.Load())
	r.count("members blaming someone else", c.wrongBlames.Load())
	wantBlames := c.expectedBlames.Load()
	r.check("every member but the sender blames the sender, no one else", c.blames.Load() == wantBlames && c.wrongBlames.Load() == 0 && c.missedBlames.Load() == 0,
		"%d of %d blame it, %d blame another, %d blame no one", c.blames.Load(), wantBlames, c.wrongBlames.Load(), c.missedBlames.Load())
	if w.side == Fanseal {
		r.check("only the victim fails, and accuses", c.atDerivation.Load() == rounds && c.onReceipt.Load() == 0 && c.accusation.Load() == rounds,
			"%d derivations failed, %d keys refused on receipt, %d accusations in %d rounds", c.atDerivation.Load(), c.onReceipt.Load(), c.accusation.Load(), rounds)
	}
}

func (w *dkgWorld) close() {}

// probe's series is the round of the largest group.
func (w *dkgWorld) probe() (*recorder, string, func() int64, int64) {
	return &w.rec, fmt.Sprintf("round n=%d", slices.Max(w.o.Members)), w.c.rounds.Load, 0
}
