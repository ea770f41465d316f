package sim

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/verify"
)

// SynchronizerOptions configure the synchronizer workload. Zero values
// select the defaults.
type SynchronizerOptions struct {
	// Participants is the number of participants: a sender, a receiver
	// and Participants−2 validators (default 22).
	Participants int
	// Views is the number of views of a transaction (default 2). Every
	// participant is an informee of every view, as in a transfer of a
	// coin whose stakeholders include every validator: 2 views × 22
	// informees = 44 stanzas.
	Views int
	// Interval is the number of transactions between commitment exchanges
	// (default 100).
	Interval int
	// Suite is the participants' key suite (default P-256).
	Suite fanseal.Suite
	// Strategy is fanseal's sealing strategy. The zero value is
	// fanseal.Parallel; the simulation uses Channel unless told otherwise.
	Strategy fanseal.Strategy
	// Signature is the participants' signature scheme: verify.Ed25519
	// (the default) or verify.P256.
	Signature verify.Scheme
	// CacheSize bounds each participant's SessionCache (default
	// fanseal.DefaultCacheSize).
	CacheSize int
}

func (o *SynchronizerOptions) defaults() {
	if o.Participants < 3 {
		o.Participants = 22
	}
	if o.Views <= 0 {
		o.Views = 2
	}
	if o.Interval <= 0 {
		o.Interval = 100
	}
	if o.Suite == 0 {
		o.Suite = fanseal.P256
	}
	if o.Signature == 0 {
		o.Signature = verify.Ed25519
	}
	if o.CacheSize <= 0 {
		o.CacheSize = fanseal.DefaultCacheSize
	}
}

// Synchronizer returns the synchronizer workload.
//
// Participants each have a long-term key (a fanseal Identity), a signing
// key (Ed25519, or ECDSA P-256), and running ACS commitments (acs.Running); on the fanseal
// side also a Keyring listing every other participant, a SessionCache
// shared by their Sealer and Opener, and, with the Precomputed strategy,
// the sender a Precomputer for its hot peers.
//
// A transaction: the sender seals each view (its contracts) for the
// view's informees and signs the request (submit). The mediator and every
// informee verify the signature; each informee opens its views, checks
// them, and sends a signed confirmation to the mediator over a loopback
// TCP connection of its own (confirm). The mediator checks the
// confirmations' signatures and, once every informee confirmed, emits the
// verdict. Every participant then applies the transaction's contract
// activations and deactivations to its running commitment, in transaction
// order; every Interval transactions each participant computes its
// commitment for every counter-participant and they compare them
// pairwise, and once more for a last, partial interval when the run stops.
//
// Baseline: sequential sealing with a fresh ephemeral key per stanza, no
// caches, keyrings or pools; signatures verified one at a time
// (crypto/ed25519); one TCP frame per confirmation; commitments
// recomputed from scratch (acs.Scratch). Fanseal: the Strategy (channel
// keys by default), the SessionCache (the sender never opens its own
// views with a key agreement), verify for signatures (the mediator checks
// a transaction's confirmations together: one Ed25519 batch verification,
// or ECDSA in parallel), a drain.Sender per connection, and incremental
// commitments (acs.Committer).
//
// Faults, 1 transaction in 25 each: a copy of a request with a corrupted
// envelope, and one with a corrupted signature, sent to one informee; a
// forged confirmation (bad signature); at transaction 10 and every 250th
// after it, the mediator drops a participant's connection in the middle of a frame (the
// send fails, the participant resends, the mediator ignores duplicates);
// and once, a validator that misses a contract activation, which the next
// commitment exchange must find and name.
func Synchronizer(o SynchronizerOptions) Workload {
	o.defaults()
	return &syncWorkload{o}
}

type syncWorkload struct{ o SynchronizerOptions }

func (*syncWorkload) Name() string { return "synchronizer" }

func (s *syncWorkload) Describe() string {
	return fmt.Sprintf("%d participants, %d views × %d informees (%d stanzas), suite %s, %s signatures, fanseal strategy %s, commitments every %d transactions",
		s.o.Participants, s.o.Views, s.o.Participants, s.o.Views*s.o.Participants, s.o.Suite, s.o.Signature, s.o.Strategy, s.o.Interval)
}

func (*syncWorkload) rules() []Rule { return nil }

// liveBound: every participant's SessionCache full (CacheSize entries of
// a file key and a fingerprint per recipient, about 100 bytes of overhead
// each), its Keyring's channel keys (two epochs, both directions, every
// peer: an AES-GCM state of about 1 KiB each), the active contracts of
// every participant's commitment (contractWindow transactions of Views
// contracts), what is in flight (at most the open loop's bound, or 64,
// each transaction's envelopes and confirmations) and the auditor's log
// (auditTxs transactions' envelopes).
func (s *syncWorkload) liveBound(cfg *Config) uint64 {
	o := s.o
	cache := uint64(o.CacheSize) * uint64(32+16*o.Participants+100)
	contracts := uint64(contractWindow*o.Views) * 512
	ring := uint64(4*o.Participants) << 10
	tx := uint64(o.Views) * uint64(o.Participants) * (viewSize + 256) * 4
	perParticipant := cache + ring + contracts
	inFlight := uint64(max(DefaultOpenBound, cfg.Concurrency))
	audit := uint64(auditTxs) * tx / 4 // the auditor's envelopes, one copy
	return uint64(o.Participants)*perParticipant + inFlight*tx + audit
}

// Fault rates.
const (
	faultEvery = 25  // a malformed envelope, a bad request and a bad confirmation signature
	dropEvery  = 250 // a dropped connection, the first at transaction dropFirst
	dropFirst  = 10
	// missingAt is the transaction one validator misses a contract of,
	// inside the first interval of any Interval above it.
	missingAt = 6
	// Every trafficEvery transactions from trafficFirst, one of the
	// traffic faults, in turn (see trafficFault).
	trafficEvery = 100
	trafficFirst = 50
	// stallFor is how long a slow receiver reads nothing.
	stallFor = 200 * time.Millisecond
)

// syncWorld is one side's synchronizer: participants, a mediator, the
// commitment board.
type syncWorld struct {
	o        SynchronizerOptions
	side     Side
	cfg      *Config
	parts    []*participant
	med      *mediator
	board    *board
	hosting  map[string]int // party → participant index
	nextSeq  atomic.Uint64
	epoch    atomic.Uint32 // the participants' Keyring epoch
	faultMu  sync.Mutex    // one traffic fault at a time
	rec      recorder
	load     Load
	c        syncCounters
	fault    missingFault
	finalErr []string // commitment pairs that disagree at the end
	incrErr  int      // participants whose incremental commitments differ from scratch
	audits   auditLog
	audited  viewAudit
}

type syncCounters struct {
	txs, verdicts, approved                   atomic.Int64
	stalls, restarts, rotations, flushes      atomic.Int64
	inapplicable                              atomic.Int64 // traffic faults the baseline has nothing for
	badEnvelopes, rejectedEnvelopes           atomic.Int64
	badRequests, rejectedRequests             atomic.Int64
	badConfirmations                          atomic.Int64
	drops, sendErrors, resent, untypedRejects atomic.Int64
	frames                                    atomic.Int64
}

func (s *syncWorkload) newWorld(ctx context.Context, side Side, cfg *Config) (world, error) {
	w := &syncWorld{o: s.o, side: side, cfg: cfg, hosting: map[string]int{}}
	w.rec.declare("submit", "seal every view for its informees and sign the request")
	w.rec.declare("confirm", "an informee: verify the request, open and check its views, send its signed confirmation")
	w.rec.declare("end-to-end", "from submission to the verdict, applied by every participant")
	w.rec.declare("audit", fmt.Sprintf("at the end, a receiver with a fresh state reads the views of the last %d transactions, %d at a time (fanseal: one OpenAll)", auditTxs, auditBatch))
	var err error
	if w.parts, err = newParticipants(s.o, side, w.hosting, &w.c); err != nil {
		w.close()
		return nil, err
	}
	w.board = newBoard(len(w.parts), s.o.Interval)
	if w.med, err = startMediator(side, w.parts, &w.c); err != nil {
		w.close()
		return nil, err
	}
	for _, p := range w.parts {
		p.state().link = newLink(side, w.med.addr, &w.c)
	}
	if cfg.Faults {
		w.fault.at = missingAt
	}
	return w, nil
}

func (w *syncWorld) run(ctx context.Context, d time.Duration) error {
	l, err := drive(ctx, d, cmp.Or(w.cfg.Concurrency, 8), w.cfg.Rate, w.cfg.Concurrency, w.transaction)
	w.load.add(l)
	return err
}

// A request is what the sender sends to the mediator and every informee.
type request struct {
	seq   uint64
	views [][]byte // an envelope per view
	sig   []byte
}

// signedBytes returns the bytes the sender signs: a label, the
// transaction's sequence number and the hash of every view.
func (r *request) signedBytes() []byte {
	b := binary.BigEndian.AppendUint64([]byte("fanseal sim request"), r.seq)
	for _, v := range r.views {
		h := sha256.Sum256(v)
		b = append(b, h[:]...)
	}
	return b
}

// transaction runs one transaction from submission to applied verdict.
func (w *syncWorld) transaction(ctx context.Context, due time.Time) error {
	seq := w.nextSeq.Add(1) - 1
	tx := w.generate(seq)
	w.c.txs.Add(1)
	sender := w.parts[senderIndex]

	start := time.Now()
	req, err := sender.submit(tx)
	if err != nil {
		return fmt.Errorf("transaction %d: submitting: %w", seq, err)
	}
	w.rec.add("submit", time.Since(start))

	verdict, err := w.med.register(req, sender.signer.pub)
	if err != nil {
		return fmt.Errorf("transaction %d: %w", seq, err)
	}
	if w.cfg.Faults && seq%dropEvery == dropFirst {
		w.med.dropNext(int(seq/dropEvery) % len(w.parts))
	}
	if w.cfg.Faults && seq >= trafficFirst && (seq-trafficFirst)%trafficEvery == 0 {
		if err := w.trafficFault((seq - trafficFirst) / trafficEvery); err != nil {
			return fmt.Errorf("transaction %d: %w", seq, err)
		}
	}
	var g errgroup.Group
	for _, p := range w.parts {
		g.Go(func() error {
			t := time.Now()
			if err := p.confirm(ctx, req, sender.signer.pub); err != nil {
				return fmt.Errorf("transaction %d: %s: %w", seq, p.name, err)
			}
			w.rec.add("confirm", time.Since(t))
			return nil
		})
	}
	if w.cfg.Faults && seq%faultEvery == 0 {
		g.Go(func() error { return w.injectBadInput(ctx, req, sender) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	select {
	case approved := <-verdict:
		w.audits.keep(seq, req.views)
		w.c.verdicts.Add(1)
		if approved {
			w.c.approved.Add(1)
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	for _, p := range w.parts {
		if err := p.deliver(tx, w); err != nil {
			return err
		}
	}
	w.rec.add("end-to-end", time.Since(due))
	return nil
}

// Traffic faults, in turn: a slow receiver, a restart, an epoch rotation,
// a SessionCache flush.
const (
	faultStall = iota
	faultRestart
	faultRotation
	faultFlush
	trafficFaults
)

// trafficFault injects the k-th traffic fault, while transactions are in
// flight. Each must be absorbed: every transaction still gets its
// verdict.
//
//   - A slow receiver: a validator reads no request for stallFor; every
//     transaction waits for its confirmation, and an open loop sheds what
//     arrives meanwhile.
//   - A restart: a validator drops its connection and rebuilds its state
//     from its identity alone: a new connection, and on fanseal's side a
//     new Keyring (every peer added again, at the current epoch) and an
//     empty SessionCache. Its confirmations in flight are resent.
//   - An epoch rotation: every Keyring moves to the next epoch, the
//     receivers first and the sender last, so that no envelope is sealed
//     in an epoch a receiver does not open yet (a Keyring opens its epoch
//     and the one before).
//   - A flush: every SessionCache is purged; opens take key agreements
//     again.
//
// The baseline has neither Keyrings nor caches: there only stalls and
// restarts apply.
func (w *syncWorld) trafficFault(k uint64) error {
	w.faultMu.Lock()
	defer w.faultMu.Unlock()
	victim := w.parts[2+int(k/trafficFaults)%(len(w.parts)-2)] // a validator
	switch k % trafficFaults {
	case faultStall:
		victim.stalledUntil.Store(time.Now().Add(stallFor).UnixNano())
		w.c.stalls.Add(1)
	case faultRestart:
		st, err := victim.newState(w.epoch.Load())
		if err != nil {
			return fmt.Errorf("restarting %s: %w", victim.name, err)
		}
		st.link = newLink(w.side, w.med.addr, &w.c)
		old := victim.st.Swap(st)
		old.link.close()
		w.c.restarts.Add(1)
	case faultRotation:
		if w.side == Baseline {
			w.c.inapplicable.Add(1)
			return nil
		}
		e := w.epoch.Add(1)
		for i := len(w.parts) - 1; i >= 0; i-- { // the sender, index 0, last
			w.parts[i].state().ring.SetEpoch(e)
		}
		w.c.rotations.Add(1)
	case faultFlush:
		if w.side == Baseline {
			w.c.inapplicable.Add(1)
			return nil
		}
		for _, p := range w.parts {
			p.state().cache.Purge()
		}
		w.c.flushes.Add(1)
	}
	return nil
}

// injectBadInput sends one informee a request with a corrupted envelope
// and one with a corrupted signature, and the mediator a confirmation
// with a bad signature. Each must be rejected with a typed error.
func (w *syncWorld) injectBadInput(ctx context.Context, req *request, sender *participant) error {
	rng := mrand.New(mrand.NewPCG(w.cfg.Seed, req.seq))
	victim := w.parts[1+rng.IntN(len(w.parts)-1)]

	bad := &request{seq: req.seq, views: append([][]byte(nil), req.views...)}
	env := append([]byte(nil), bad.views[0]...)
	env[rng.IntN(len(env))] ^= byte(1 + rng.IntN(255))
	bad.views[0] = env
	bad.sig = sender.signer.sign(bad.signedBytes())
	w.c.badEnvelopes.Add(1)
	_, err := victim.check(bad, sender.signer.pub)
	w.countRejection(err, &w.c.rejectedEnvelopes, fanseal.ErrMalformed, fanseal.ErrAuthentication, fanseal.ErrTruncated, fanseal.ErrUnsupported, fanseal.ErrNotRecipient)

	forged := &request{seq: req.seq, views: req.views, sig: append([]byte(nil), req.sig...)}
	forged.sig[rng.IntN(len(forged.sig))] ^= byte(1 + rng.IntN(255))
	w.c.badRequests.Add(1)
	_, err = victim.check(forged, sender.signer.pub)
	w.countRejection(err, &w.c.rejectedRequests, errBadSignature, verify.ErrInvalid, verify.ErrSignature)

	w.c.badConfirmations.Add(1)
	return victim.respond(ctx, req.seq, sha256.Sum256(req.signedBytes()), true)
}

// countRejection counts err as a rejection if it matches one of the typed
// errors, and as an untyped one otherwise (a nil err is a fault accepted).
func (w *syncWorld) countRejection(err error, rejected *atomic.Int64, typed ...error) {
	for _, t := range typed {
		if errors.Is(err, t) {
			rejected.Add(1)
			return
		}
	}
	w.c.untypedRejects.Add(1)
}

// finish waits for the mediator to check every confirmation received,
// exchanges the commitments of a last, partial interval, then recomputes
// every participant's commitments from scratch.
func (w *syncWorld) finish(ctx context.Context) error {
	w.med.settle()
	w.lastExchange()
	var err error
	w.finalErr, w.incrErr, err = w.finalCheck()
	w.audited = w.audit()
	return err
}

func (w *syncWorld) report(r *SideResult) {
	c := &w.c
	r.Unit = "tx"
	r.Ops = int(c.verdicts.Load())
	r.Load = &w.load
	r.Latency = w.rec.sorted()
	r.count("transactions", c.txs.Load())
	r.count("verdicts", c.verdicts.Load())
	r.count("confirmations received", w.med.received.Load())
	r.count("confirmation frames sent", c.frames.Load())
	if w.side == Fanseal {
		r.count("confirmation verification batches", w.med.batches.Load())
	}
	r.count("commitment exchanges", int64(w.board.exchanges.Load()))
	r.check("no verdict lost", c.verdicts.Load() == c.txs.Load() && c.approved.Load() == c.txs.Load() && w.med.pendingCount() == 0,
		"%d transactions, %d verdicts, %d approved, %d pending", c.txs.Load(), c.verdicts.Load(), c.approved.Load(), w.med.pendingCount())
	r.check("commitments agree at the end", len(w.finalErr) == 0, "pairs that disagree: %v", w.finalErr)
	a := w.audited
	r.count("audit: views read", int64(a.views))
	detail := fmt.Sprintf("%d views in %v, %v a view", a.views, a.took.Round(time.Microsecond), (a.took / time.Duration(max(a.views, 1))).Round(10*time.Nanosecond))
	if a.err != nil {
		detail += ": " + a.err.Error()
	}
	r.check("an auditor reads the last transactions' views", a.err == nil && a.views > 0, "%s", detail)
	if w.side == Fanseal {
		r.check("incremental commitments equal recomputed ones", w.incrErr == 0, "%d participants differ", w.incrErr)
	}
	mismatches := w.board.mismatchList()
	if !w.cfg.Faults {
		r.check("no commitment mismatch", len(mismatches) == 0, "%v", mismatches)
		return
	}
	r.count("injected: malformed envelopes", c.badEnvelopes.Load())
	r.count("rejected: malformed envelopes", c.rejectedEnvelopes.Load())
	r.count("injected: bad request signatures", c.badRequests.Load())
	r.count("rejected: bad request signatures", c.rejectedRequests.Load())
	r.count("injected: bad confirmation signatures", c.badConfirmations.Load())
	r.count("rejected: bad confirmation signatures", w.med.rejected.Load())
	r.count("injected: dropped connections", c.drops.Load())
	r.count("send errors reported", c.sendErrors.Load())
	r.count("confirmations resent", c.resent.Load())
	r.count("duplicate confirmations ignored", w.med.duplicates.Load())
	r.count("injected: missing contracts", int64(w.fault.injected()))
	r.count("injected: slow receivers (stopped reading)", c.stalls.Load())
	r.count("injected: restarts with the state rebuilt", c.restarts.Load())
	r.count("injected: epoch rotations during traffic", c.rotations.Load())
	r.count("injected: SessionCache flushes under load", c.flushes.Load())
	r.count("commitment mismatches found", int64(len(mismatches)))
	r.check("bad input rejected with typed errors", c.rejectedEnvelopes.Load() == c.badEnvelopes.Load() &&
		c.rejectedRequests.Load() == c.badRequests.Load() && w.med.rejected.Load() == c.badConfirmations.Load() && c.untypedRejects.Load() == 0,
		"envelopes %d/%d, requests %d/%d, confirmations %d/%d, %d untyped or accepted", c.rejectedEnvelopes.Load(), c.badEnvelopes.Load(),
		c.rejectedRequests.Load(), c.badRequests.Load(), w.med.rejected.Load(), c.badConfirmations.Load(), c.untypedRejects.Load())
	wantDrops := c.drops.Load() > 0 || c.txs.Load() <= dropFirst+1
	r.check("every dropped connection reported and resent", wantDrops && c.sendErrors.Load() >= c.drops.Load() && c.resent.Load() >= c.drops.Load(),
		"%d drops, %d send errors, %d resent", c.drops.Load(), c.sendErrors.Load(), c.resent.Load())
	if w.fault.injected() > 0 {
		ok, detail := w.fault.found(mismatches, w.o.Interval)
		r.check("the missing contract is found", ok, "%s", detail)
	}
	// Every traffic fault due was injected; "no verdict lost" above says
	// each was absorbed.
	due := int64(0)
	if txs := c.txs.Load(); txs > trafficFirst {
		due = (txs - trafficFirst + trafficEvery - 1) / trafficEvery
	}
	got := c.stalls.Load() + c.restarts.Load() + c.rotations.Load() + c.flushes.Load() + c.inapplicable.Load()
	r.check("traffic faults injected and absorbed", got == due,
		"%d of %d due: %d stalls, %d restarts, %d rotations, %d flushes", got, due, c.stalls.Load(), c.restarts.Load(), c.rotations.Load(), c.flushes.Load())
}

func (w *syncWorld) close() {
	for _, p := range w.parts {
		p.close()
	}
	if w.med != nil {
		w.med.close()
	}
}

// probe's steady state starts once contracts are archived as fast as
// they are created (after contractWindow transactions), the
// SessionCaches are full (an entry per view: CacheSize/Views
// transactions), and every stakeholder group has been seen, so that the
// commitments hold a hash for each (see groupsSeen).
func (w *syncWorld) probe() (*recorder, string, func() int64, int64) {
	return &w.rec, "end-to-end", w.c.verdicts.Load, max(contractWindow, int64(w.o.CacheSize/w.o.Views), groupsSeen(w.o))
}

// groupsSeen returns about how many transactions it takes for every
// stakeholder group of contracts to turn up: the expected number of
// draws to collect all G equally likely groups is G·H(G) (the coupon
// collector), and view 0 draws one of partiesPer² × validators ×
// partiesPer groups per transaction, every other view one of partiesPer
// × validators × partiesPer.
func groupsSeen(o SynchronizerOptions) int64 {
	collect := func(g float64) float64 { return g * (math.Log(g) + 0.5772) }
	validators := float64(o.Participants - 2)
	n := collect(partiesPer * partiesPer * validators * partiesPer)
	if o.Views > 1 {
		n = max(n, collect(partiesPer*validators*partiesPer)/float64(o.Views-1))
	}
	return int64(n)
}
