package sim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/fanseal/fanseal"
)

// Participant 0 is the sender, 1 the receiver, the rest validators. Each
// hosts partiesPer parties.
const (
	senderIndex   = 0
	receiverIndex = 1
	partiesPer    = 4
	// viewSize is the size of a view's payload.
	viewSize = 512
	// contractWindow is how many transactions a contract stays active:
	// transaction s archives the contracts of transaction s−contractWindow.
	contractWindow = 2000
	// maxAttempts bounds the sends of one confirmation.
	maxAttempts = 5
)

// A participant is a node: its keys, its sealing and opening state, its
// link to the mediator and its running commitments.
type participant struct {
	index  int
	name   string
	side   Side
	o      *SynchronizerOptions
	id     *fanseal.Identity
	signer *signer
	pre    *fanseal.Precomputer
	all    []*fanseal.Recipient // every participant, the informees of every view
	acs    *activeContracts
	c      *syncCounters
	// st is the state a restart rebuilds (see restart); transactions in
	// flight finish with the state they started with.
	st atomic.Pointer[partState]
	// stalledUntil, in Unix nanoseconds, makes the participant stop
	// reading requests until then (a slow receiver).
	stalledUntil atomic.Int64
}

// partState is what a participant loses when it restarts: its connection,
// and on fanseal's side its Keyring and SessionCache.
type partState struct {
	sealer *fanseal.Sealer
	opener *fanseal.Opener
	ring   *fanseal.Keyring
	cache  *fanseal.SessionCache
	link   *link
}

// newState returns the participant's sealing and opening state: on
// fanseal's side a Keyring of every participant at epoch and a fresh
// SessionCache.
func (p *participant) newState(epoch uint32) (*partState, error) {
	if p.side == Baseline {
		return &partState{sealer: &fanseal.Sealer{Strategy: fanseal.Sequential}, opener: &fanseal.Opener{}}, nil
	}
	ring, err := fanseal.NewKeyring(p.id, 0)
	if err != nil {
		return nil, err
	}
	// Every participant of the synchronizer is a peer, the participant
	// itself included: its own stanza in what it seals is a channel
	// stanza too (under DH(a, aG), which only it can compute).
	if err := ring.AddPeer(p.all...); err != nil {
		return nil, err
	}
	ring.SetEpoch(epoch)
	cache := fanseal.NewSessionCache(p.o.CacheSize, 0)
	st := &partState{ring: ring, cache: cache,
		sealer: &fanseal.Sealer{Strategy: p.o.Strategy, Keyring: ring, Cache: cache, Precomputer: p.pre},
		opener: &fanseal.Opener{Keyring: ring, Cache: cache}}
	return st, nil
}

// state returns the participant's current state.
func (p *participant) state() *partState { return p.st.Load() }

func participantName(i int) string {
	switch i {
	case senderIndex:
		return "sender"
	case receiverIndex:
		return "receiver"
	}
	return fmt.Sprintf("validator-%02d", i-1)
}

func partyName(participant, j int) string {
	return fmt.Sprintf("%s/%d", participantName(participant), j)
}

// newParticipants creates the participants of one side and records in
// hosting which participant hosts each party.
func newParticipants(o SynchronizerOptions, side Side, hosting map[string]int, c *syncCounters) ([]*participant, error) {
	parts := make([]*participant, o.Participants)
	var all []*fanseal.Recipient
	for i := range parts {
		id, err := fanseal.GenerateIdentity(o.Suite)
		if err != nil {
			return nil, err
		}
		sg, err := newSigner(o.Signature)
		if err != nil {
			return nil, err
		}
		parts[i] = &participant{index: i, name: participantName(i), side: side, o: &o, id: id, signer: sg, c: c}
		all = append(all, id.Recipient())
		for j := range partiesPer {
			hosting[partyName(i, j)] = i
		}
	}
	for _, p := range parts {
		p.all = all
		var err error
		if p.acs, err = newActiveContracts(p, side, hosting); err != nil {
			return nil, err
		}
		if side == Fanseal && o.Strategy == fanseal.Precomputed && p.index == senderIndex {
			if p.pre, err = fanseal.NewPrecomputer(fanseal.PrecomputeOptions{}, all...); err != nil {
				return nil, err
			}
		}
		st, err := p.newState(0)
		if err != nil {
			return nil, err
		}
		p.st.Store(st)
	}
	return parts, nil
}

// A syncTx is the content of one transaction, generated from the seed and
// its sequence number so that both sides process the same.
type syncTx struct {
	seq   uint64
	views []txView
}

type txView struct {
	payload    []byte
	activate   []contract
	deactivate []contract
}

// A contract is an active contract's identifier and its stakeholders.
type contract struct {
	id      string
	parties []string
}

// contracts returns the contracts transaction seq creates, one per view:
// view 0's stakeholders are a sender party, a receiver party and a
// validator party, the others' a sender party and a validator party.
func (w *syncWorld) contracts(seq uint64) []contract {
	rng := mrand.New(mrand.NewPCG(w.cfg.Seed, seq))
	out := make([]contract, w.o.Views)
	for v := range out {
		parties := []string{partyName(senderIndex, rng.IntN(partiesPer))}
		if v == 0 {
			parties = append(parties, partyName(receiverIndex, rng.IntN(partiesPer)))
		}
		validator := 2 + rng.IntN(w.o.Participants-2)
		parties = append(parties, partyName(validator, rng.IntN(partiesPer)))
		out[v] = contract{id: fmt.Sprintf("tx-%d/view-%d", seq, v), parties: parties}
	}
	return out
}

// generate returns transaction seq: each view creates one contract and
// archives one of transaction seq−contractWindow.
func (w *syncWorld) generate(seq uint64) *syncTx {
	tx := &syncTx{seq: seq, views: make([]txView, w.o.Views)}
	created := w.contracts(seq)
	var archived []contract
	if seq >= contractWindow {
		archived = w.contracts(seq - contractWindow)
	}
	for v := range tx.views {
		view := &tx.views[v]
		view.activate = created[v : v+1]
		if archived != nil {
			view.deactivate = archived[v : v+1]
		}
		view.payload = viewPayload(seq, v, view)
	}
	return tx
}

// viewPayload encodes a view: seq (8) || view (2) || its contracts'
// identifiers and parties, zero-padded to viewSize bytes.
func viewPayload(seq uint64, v int, view *txView) []byte {
	head := viewHead(seq, v)
	b := append(make([]byte, 0, viewSize), head[:]...)
	for _, cs := range [][]contract{view.activate, view.deactivate} {
		for _, c := range cs {
			b = append(b, c.id...)
			for _, p := range c.parties {
				b = append(append(b, ' '), p...)
			}
			b = append(b, ';')
		}
	}
	if len(b) < viewSize {
		b = b[:viewSize]
	}
	return b
}

// viewHead is how view v of transaction seq begins: seq (8) || v (2).
func viewHead(seq uint64, v int) (h [10]byte) {
	binary.BigEndian.PutUint64(h[:], seq)
	binary.BigEndian.PutUint16(h[8:], uint16(v))
	return h
}

// submit seals every view for every participant and signs the request.
func (p *participant) submit(tx *syncTx) (*request, error) {
	req := &request{seq: tx.seq}
	for _, v := range tx.views {
		env, err := p.state().sealer.SealBytes(v.payload, p.all...)
		if err != nil {
			return nil, err
		}
		req.views = append(req.views, env)
	}
	req.sig = p.signer.sign(req.signedBytes())
	return req, nil
}

// check verifies a request's signature, then opens and checks every view.
// It returns the request's hash, which the confirmation names.
func (p *participant) check(req *request, senderKey []byte) ([32]byte, error) {
	if wait := time.Until(time.Unix(0, p.stalledUntil.Load())); wait > 0 {
		time.Sleep(wait) // a slow receiver: it reads nothing until then
	}
	st := p.state()
	msg := req.signedBytes()
	if err := checkSignature(p.side, p.signer.scheme, senderKey, msg, req.sig); err != nil {
		return [32]byte{}, fmt.Errorf("request signature: %w", err)
	}
	pts, errs := st.open(p.side, req.views, p.id)
	for v, pt := range pts {
		if errs[v] != nil {
			return [32]byte{}, fmt.Errorf("view %d: %w", v, errs[v])
		}
		if head := viewHead(req.seq, v); !bytes.HasPrefix(pt, head[:]) {
			return [32]byte{}, fmt.Errorf("%w: view %d", errBadView, v)
		}
	}
	return sha256.Sum256(msg), nil
}

// open opens a request's views: fanseal's side in one OpenAll, whose
// key agreements (under a forward-secret strategy, one per view) run in
// passes; the baseline's one OpenBytes after another.
func (st *partState) open(side Side, views [][]byte, id *fanseal.Identity) ([][]byte, []error) {
	if side != Baseline {
		return st.opener.OpenAll(views, id)
	}
	pts, errs := make([][]byte, len(views)), make([]error, len(views))
	for v, env := range views {
		pts[v], errs[v] = st.opener.OpenBytes(env, id)
	}
	return pts, errs
}

// confirm checks a request and sends the participant's confirmation.
func (p *participant) confirm(ctx context.Context, req *request, senderKey []byte) error {
	h, err := p.check(req, senderKey)
	if err != nil {
		return err
	}
	return p.respond(ctx, req.seq, h, false)
}

// respond signs and sends a confirmation approving the request of seq
// with hash reqHash (with a corrupted signature if forge is set),
// resending after a failed send.
func (p *participant) respond(ctx context.Context, seq uint64, reqHash [32]byte, forge bool) error {
	c := &confirmation{seq: seq, participant: p.index, approve: true, reqHash: reqHash}
	c.sig = p.signer.sign(c.signedBytes())
	if forge {
		c.sig[0] ^= 0x40
	}
	msg := c.marshal()
	for attempt := 1; ; attempt++ {
		err := p.state().link.submit(ctx, msg)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p.c.sendErrors.Add(1)
		if attempt == maxAttempts {
			return fmt.Errorf("confirmation not sent after %d attempts: %w", attempt, err)
		}
		p.c.resent.Add(1)
	}
}

func (p *participant) close() {
	if st := p.state(); st != nil && st.link != nil {
		st.link.close()
	}
	if p.pre != nil {
		p.pre.Close()
	}

}
