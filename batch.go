package fanseal

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
)

// minBatch is the fewest key agreements of one suite that a seal, a
// Precomputer refill or a Keyring warm-up ever gathers into passes of an
// engine (internal/x25519x8 for X25519, internal/ecdhx8 for P-256 and
// secp256k1) instead of computing them one at a time: a pass costs the
// same whether it fills one lane or all of them, and never less than one
// agreement. gathers decides from there, with what a pass costs on this
// CPU.
const minBatch = 2

// batchedAgreements counts the key agreements computed in batches (seals,
// Precomputer refills, Keyring warm-ups), so tests can tell that the
// batched path ran.
var batchedAgreements atomic.Uint64

// batchPasses counts the passes batched agreements ran in (a
// post-quantum pass is two engine passes: the ephemeral keys, then the
// agreements), so tests can tell how the work was cut.
var batchPasses atomic.Uint64

// batches reports whether cs's key agreements can be gathered into
// passes on this CPU: those of the classical suites, and the X25519
// halves of the post-quantum suite's encapsulations.
func (cs *cipherSuite) batches() bool {
	if cs.kem != nil {
		return cs.kem.Batches()
	}
	return hpke.HybridBatches()
}

// gathers reports whether n key agreements of cs, due at once and
// computed on at most workers goroutines, are gathered into passes: from
// minBatch on, where the passes (batchSize lanes each, each costing
// PassCost agreements one at a time: 1.25 X25519 agreements with AVX-512
// IFMA, about 2.1 with AVX2 alone, 1.8 and 3.4 for P-256) take no longer on the
// workers than the agreements one at a time would. Two agreements on two
// cores take one agreement's time, less than any pass; on AVX2 alone, so
// do two on one core.
func (cs *cipherSuite) gathers(n, workers int) bool {
	if !cs.batches() || n < minBatch {
		return false
	}
	cost := hpke.HybridPassCost()
	if cs.kem != nil {
		cost = cs.kem.PassCost()
	}
	passes := ceilDiv(n, cs.batchSize(n))
	return float64(ceilDiv(passes, workers))*cost <= float64(ceilDiv(n, workers))
}

// batchSize is how many of n agreements of cs go in one call of its batch
// methods (hpke's BatchSize: one pass of its engine each).
func (cs *cipherSuite) batchSize(n int) int {
	if cs.kem != nil {
		return cs.kem.BatchSize(n)
	}
	return hpke.HybridBatchSize(n)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// batchable reports whether p's key agreement can join a batch: a fresh
// or shared HPKE stanza of a suite whose KEM batches, not yet computed.
func (p *plan) batchable() bool {
	return p.heavy && p.item == nil && p.heph == nil && p.cs != nil && p.cs.batches() &&
		(p.typ == format.StanzaHPKE || p.typ == format.StanzaShared)
}

// batchAgreements computes the key agreements of the batchable plans, at
// most hpke.MaxBatch per pass, each pass in the parallel window if
// parallel is set; a pass holds plans of one cipher suite and stanza
// type (shared stanzas of a suite share their ephemeral key). Each plan
// gets a ready sender context as its item (fresh stanzas with their new
// ephemeral key) and is no longer heavy: filling it is one AEAD seal; n
// counts them. Agreements that gathers leaves alone are left to the
// stanza fills. Channel stanzas get their channel keys from a Keyring
// warm-up, which derives those not cached yet.
func (s *Sealer) batchAgreements(ps []plan, parallel bool) (n int, err error) {
	type group struct {
		cs     *cipherSuite
		shared bool
		idx    []int
	}
	var groups []*group  // in the order of their first stanza
	var channels []*plan // of one epoch and salt, those of the first
	warm := s.Keyring != nil && s.Keyring.self.dh.KEM().Batches()
	for i := range ps {
		switch p := &ps[i]; {
		case p.typ == format.StanzaChannel:
			if warm && p.channel == nil && (channels == nil || p.epoch == channels[0].epoch && p.salt == channels[0].salt) {
				channels = append(channels, p)
			}
		case p.batchable():
			shared := p.typ == format.StanzaShared
			var g *group
			for _, o := range groups {
				if o.cs == p.cs && o.shared == shared {
					g = o
				}
			}
			if g == nil {
				g = &group{cs: p.cs, shared: shared}
				groups = append(groups, g)
			}
			g.idx = append(g.idx, i)
		}
	}
	workers := 1
	if parallel {
		workers = s.parallelism()
	}
	if len(channels) >= minBatch {
		peers := make([]*Recipient, len(channels))
		for j, p := range channels {
			peers[j] = p.r
		}
		// Errors are left to the stanza fills, which report them.
		aeads, _ := s.Keyring.warm(peers, channels[0].epoch, channels[0].salt, s.aead(), workers)
		for j, p := range channels {
			p.channel = aeads[j]
		}
	}
	// The tasks start in the order they are given, at most workers at a
	// time: a shared ephemeral key's public key, which only the key
	// schedules need, beside the first passes; every pass, as few as
	// possible (batchSize); then the key schedules, each after its
	// own pass, so that a worker without a pass left schedules those done
	// while another runs the last pass. A schedule only ever waits for a
	// pass that has started. A post-quantum stanza's schedule is a task
	// of its own, which runs its ML-KEM-768 encapsulation before it waits
	// for its X25519 pass: the encapsulations, as long as the passes, fill
	// the workers that have no pass (20 stanzas on two workers: three
	// passes of 8, 8 and 4, and twenty encapsulations beside and after
	// them, not four passes of five).
	var g errgroup.Group
	g.SetLimit(workers)
	var schedules []func()
	var failed failures
	for _, gr := range groups {
		if !gr.cs.gathers(len(gr.idx), workers) {
			continue
		}
		n += len(gr.idx)
		if gr.shared {
			eph := ps[gr.idx[0]].eph
			g.Go(func() error { eph.PublicKey(); return nil })
		}
		size := gr.cs.batchSize(len(gr.idx))
		for start := 0; start < len(gr.idx); start += size {
			batch := gr.idx[start:min(start+size, len(gr.idx))]
			if gr.cs.kem == nil {
				h := newHybridPass(ps, batch)
				g.Go(func() error { h.pass(); return nil })
				// The lanes in at most workers tasks: each new goroutine
				// grows its stack for the encapsulation anew.
				chunk := ceilDiv(len(batch), workers)
				for from := 0; from < len(batch); from += chunk {
					to := min(from+chunk, len(batch))
					schedules = append(schedules, func() { h.lanes(ps, batch, from, to, &failed) })
				}
				continue
			}
			a := &agreed{done: make(chan struct{})}
			g.Go(func() error { a.pass(ps, batch); return nil })
			schedules = append(schedules, func() { a.schedule(ps, batch, &failed) })
		}
	}
	for _, f := range schedules {
		g.Go(func() error { f(); return nil })
	}
	g.Wait()
	if failed.err != nil {
		return 0, failed.err
	}
	return n, nil
}

// failures keeps, of the stanzas that failed on several goroutines, the
// failure of the first, so that a seal names the same stanza whichever
// goroutine finishes first.
type failures struct {
	mu  sync.Mutex
	i   int
	err error
}

// add records that stanza i failed with err.
func (f *failures) add(i int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil || i < f.i {
		f.i, f.err = i, stanzaError(i, err)
	}
}

// agreed holds the key agreements of one pass until their key schedules.
type agreed struct {
	done chan struct{} // closed when the pass is done
	encs [][]byte      // the ephemeral public keys of fresh stanzas
	dh   [][]byte
	errs []error
}

// pass computes, in one pass, the key agreements of the plans ps[i], i in
// batch, which share their cipher suite and stanza type (and, for shared
// stanzas, the ephemeral key).
func (a *agreed) pass(ps []plan, batch []int) {
	defer close(a.done)
	first := &ps[batch[0]]
	pks := make([]*hpke.PublicKey, len(batch))
	for j, i := range batch {
		pks[j] = ps[i].r.dh
	}
	batchedAgreements.Add(uint64(len(batch)))
	batchPasses.Add(1)
	if first.typ == format.StanzaShared {
		a.dh, a.errs = first.cs.kem.DHBatch(first.eph, pks)
	} else {
		a.encs, a.dh, a.errs = first.cs.kem.DHFresh(pks)
	}
}

// schedule waits for the pass, then gives each plan of batch a ready
// sender context: the key schedule of its agreement. The first stanza
// that fails is recorded in failed, and the rest of batch left alone.
func (a *agreed) schedule(ps []plan, batch []int, failed *failures) {
	<-a.done
	defer func() {
		for _, d := range a.dh {
			clear(d)
		}
	}()
	first := &ps[batch[0]]
	cs := first.cs
	for j, i := range batch {
		if a.errs != nil && a.errs[j] != nil {
			failed.add(i, a.errs[j])
			return
		}
		var enc, carried []byte
		if a.encs != nil {
			enc, carried = a.encs[j], a.encs[j]
		} else {
			enc = first.eph.PublicKey() // a shared stanza, which carries no key
		}
		ss, err := cs.kem.ExtractAndExpand(a.dh[j], enc, ps[i].r.dh)
		var it *precomputed
		if err == nil {
			it, err = cs.senderItem(ps[i].r, carried, ss)
		}
		if err != nil {
			failed.add(i, err)
			return
		}
		ps[i].item, ps[i].heavy = it, false
	}
}

// hybridPass holds the X25519 halves of one pass of post-quantum stanzas
// until each stanza's task (lane) has joined its own to its ML-KEM-768
// half.
type hybridPass struct {
	done   chan struct{} // closed when the halves are computed
	pks    []*hpke.HybridPublicKey
	halves hpke.HybridHalves
}

// newHybridPass returns the pass of the plans ps[i], i in batch: fresh
// post-quantum stanzas.
func newHybridPass(ps []plan, batch []int) *hybridPass {
	h := &hybridPass{done: make(chan struct{}), pks: make([]*hpke.HybridPublicKey, len(batch))}
	for j, i := range batch {
		h.pks[j] = ps[i].r.pq
	}
	return h
}

// pass computes the X25519 halves: ephemeral keys and agreements, two
// passes of internal/x25519x8 in all.
func (h *hybridPass) pass() {
	defer close(h.done)
	batchedAgreements.Add(uint64(len(h.pks)))
	batchPasses.Add(1)
	h.halves.Compute(h.pks)
}

// lanes runs the ML-KEM-768 halves of the plans ps[batch[j]], from <= j <
// to, which need nothing from the pass; then waits for the pass and gives
// each plan a ready sender context: the two halves combined, and the key
// schedule. Every lane is finished, so that each clears its agreement;
// those that fail are recorded in failed.
func (h *hybridPass) lanes(ps []plan, batch []int, from, to int, failed *failures) {
	var ssPQ, ctPQ [hpke.MaxBatch][]byte
	for j := from; j < to; j++ {
		ssPQ[j], ctPQ[j] = h.pks[j].EncapsulatePQ()
	}
	defer func() {
		for j := from; j < to; j++ {
			clear(ssPQ[j])
		}
	}()
	<-h.done
	for j := from; j < to; j++ {
		i, p := batch[j], &ps[batch[j]]
		enc, ss, err := h.halves.Finish(j, h.pks[j], ssPQ[j], ctPQ[j])
		var it *precomputed
		if err == nil {
			it, err = p.cs.senderItem(p.r, enc, ss)
		}
		if err != nil {
			failed.add(i, err)
			continue
		}
		p.item, p.heavy = it, false
	}
}

// precomputeBatch does what precompute does for each of rs (at most
// hpke.MaxBatch recipients of cs's suite) with two passes in all: the
// ephemeral keys and the key agreements. errs is nil or holds each
// recipient's error.
func (cs *cipherSuite) precomputeBatch(rs []*Recipient) (its []*precomputed, errs []error) {
	batchedAgreements.Add(uint64(len(rs)))
	var encs, ss [][]byte
	if cs.kem == nil {
		pks := make([]*hpke.HybridPublicKey, len(rs))
		for i, r := range rs {
			pks[i] = r.pq
		}
		encs, ss, errs = hpke.HybridEncapFresh(pks)
	} else {
		encs, ss, errs = cs.kem.EncapFresh(publicKeys(rs))
	}
	return cs.contexts(rs, encs, ss, errs)
}

func publicKeys(rs []*Recipient) []*hpke.PublicKey {
	pks := make([]*hpke.PublicKey, len(rs))
	for i, r := range rs {
		pks[i] = r.dh
	}
	return pks
}

// contexts runs the key schedule on each shared secret that has no error,
// and clears it (senderItem).
func (cs *cipherSuite) contexts(rs []*Recipient, encs, ss [][]byte, errs []error) ([]*precomputed, []error) {
	its := make([]*precomputed, len(ss))
	for i := range ss {
		if errs != nil && errs[i] != nil {
			continue
		}
		var enc []byte
		if encs != nil {
			enc = encs[i]
		}
		var err error
		if its[i], err = cs.senderItem(rs[i], enc, ss[i]); err != nil {
			if errs == nil {
				errs = make([]error, len(ss))
			}
			errs[i] = err
		}
	}
	return its, errs
}

// Warm derives and caches the channel keys for sealing to every peer in
// the current epoch with aead (0 means AES256GCM), so that the first
// Channel seal to each costs one AEAD seal, like the ones after it. Call
// it after AddPeer and SetEpoch. On a CPU with AVX-512 IFMA the key
// agreements run eight to a pass, the passes on GOMAXPROCS goroutines
// (unless a few P-256 agreements are done sooner one at a time on those
// goroutines: see gathers); otherwise one agreement after another on as
// many. Channel
// seals warm the peers they need the same way, so Warm only moves that
// work ahead of time. A peer whose key agreement fails (a low-order
// X25519 key) is named in the error; the others are warmed.
func (k *Keyring) Warm(aead AEAD) error {
	if aead == 0 {
		aead = AES256GCM
	}
	if _, err := lookupSuite(k.self.suite, aead); err != nil {
		return err
	}
	k.mu.RLock()
	var peers []*Recipient
	for _, list := range k.peers {
		peers = append(peers, list...)
	}
	epoch, salt := k.epoch, k.salt
	k.mu.RUnlock()
	_, err := k.warm(peers, epoch, salt, aead, runtime.GOMAXPROCS(0))
	return err
}

// warm returns the sending channel AEADs to peers (the Keyring's own
// Recipients) that are cached, and derives and caches the others on at
// most workers goroutines; aeads[i] is nil where peers[i] was not cached.
func (k *Keyring) warm(peers []*Recipient, epoch uint32, salt [format.SaltSize]byte, aead AEAD, workers int) (aeads []cipher.AEAD, err error) {
	aeads = make([]cipher.AEAD, len(peers))
	var cold []*Recipient
	for i, p := range peers {
		var ok bool
		if aeads[i], ok = k.channels.Get(channelID{peer: p, send: true, epoch: epoch, salt: salt, aead: aead}); !ok {
			cold = append(cold, p)
		}
	}
	cs, _ := lookupSuite(k.self.suite, aead) // aead is one of the suites'
	size := 1
	if cs.gathers(len(cold), workers) {
		size = cs.batchSize(len(cold))
	}
	errs := make([]error, len(cold))
	var g errgroup.Group
	g.SetLimit(workers)
	for start := 0; start < len(cold); start += size {
		part := cold[start:min(start+size, len(cold))]
		g.Go(func() error {
			dh := make([][]byte, len(part))
			if len(part) > 1 {
				// A failed agreement (nil) is computed again by channel,
				// which reports it.
				batchedAgreements.Add(uint64(len(part)))
				dh, _ = cs.kem.DHBatch(k.self.dh, publicKeys(part))
			}
			for j, p := range part {
				if _, _, err := k.channel(channelID{peer: p, send: true, epoch: epoch, salt: salt, aead: aead}, true, dh[j]); err != nil {
					errs[start+j] = fmt.Errorf("peer %x: %w", p.id, err)
				}
				// Unused if another goroutine derived the key meanwhile:
				// do not keep the secret.
				clear(dh[j])
			}
			return nil
		})
	}
	g.Wait()
	return aeads, errors.Join(errs...)
}
