package sim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fanseal/fanseal/acs"
	"github.com/fanseal/fanseal/lthash"
)

// activeContracts is a participant's active contract set: a running
// commitment (one LtHash16 per stakeholder group) of the contracts with a
// stakeholder it hosts, updated in transaction order as verdicts arrive,
// and, on fanseal's side, an incremental Committer.
type activeContracts struct {
	mu        sync.Mutex
	index     int
	self      acs.ParticipantID
	side      Side
	hosts     map[string]int // party → participant index, shared and read-only
	hosting   acs.Hosting
	running   *acs.Running
	committer *acs.Committer
	applied   uint64             // transactions applied
	pending   map[uint64]*syncTx // delivered out of order
	missing   []acs.Contract     // activations skipped by the injected fault
}

func newActiveContracts(p *participant, side Side, hosts map[string]int) (*activeContracts, error) {
	l := &activeContracts{index: p.index, self: acs.ParticipantID(p.name), side: side, hosts: hosts,
		hosting: acs.Hosting{}, pending: map[uint64]*syncTx{}}
	for party, i := range hosts {
		l.hosting[acs.PartyID(party)] = acs.ParticipantID(participantName(i))
	}
	var err error
	if l.running, err = acs.NewRunning(lthash.BLAKE3); err != nil {
		return nil, err
	}
	// Participants apply in parallel with each other already.
	l.running.Parallelism = 1
	if side == Fanseal {
		if l.committer, err = acs.NewCommitter(l.self, l.hosting, lthash.BLAKE3); err != nil {
			return nil, err
		}
		l.committer.Parallelism = 1
	}
	return l, nil
}

// stakeholders returns the canonical set of c's parties. It is built
// anew every time (a sort of a few names): a memo of every set seen would
// grow for as long as new combinations of parties turn up.
func (l *activeContracts) stakeholders(c contract) (acs.Stakeholders, error) {
	ps := make([]acs.PartyID, len(c.parties))
	for i, p := range c.parties {
		ps[i] = acs.PartyID(p)
	}
	return acs.NewStakeholders(ps...)
}

// mine reports whether the participant hosts a stakeholder of c.
func (l *activeContracts) mine(c contract) bool {
	return slices.ContainsFunc(c.parties, func(p string) bool { return l.hosts[p] == l.index })
}

// A commitmentPost is a participant's commitments at the end of an
// interval.
type commitmentPost struct {
	tick        uint64
	commitments map[acs.ParticipantID][32]byte
}

// deliver hands the participant transaction tx after its verdict. It
// applies every transaction whose predecessors are all applied and, at
// the end of each interval, computes its commitments and posts them.
func (p *participant) deliver(tx *syncTx, w *syncWorld) error {
	l := p.acs
	var posts []commitmentPost
	l.mu.Lock()
	l.pending[tx.seq] = tx
	for {
		next, ok := l.pending[l.applied]
		if !ok {
			break
		}
		delete(l.pending, l.applied)
		if err := l.apply(next, &w.fault); err != nil {
			l.mu.Unlock()
			return err
		}
		if l.applied++; l.applied%uint64(w.o.Interval) == 0 {
			posts = append(posts, commitmentPost{l.applied / uint64(w.o.Interval), l.commitments()})
		}
	}
	l.mu.Unlock()
	for _, post := range posts {
		w.exchange(l.self, post)
	}
	return nil
}

// exchange posts self's commitments on the board and repairs the missing
// contract where the mismatches it reveals name the fault's victim.
func (w *syncWorld) exchange(self acs.ParticipantID, post commitmentPost) {
	if found := w.board.post(post.tick, self, post.commitments); len(found) > 0 {
		w.fault.repair(w.parts, found)
	}
}

// apply applies one transaction's contracts that concern the participant.
func (l *activeContracts) apply(tx *syncTx, fault *missingFault) error {
	var acts, deacts []acs.Contract
	for v, view := range tx.views {
		for _, list := range []struct {
			cs  []contract
			out *[]acs.Contract
		}{{view.activate, &acts}, {view.deactivate, &deacts}} {
			for _, c := range list.cs {
				if !l.mine(c) {
					continue
				}
				st, err := l.stakeholders(c)
				if err != nil {
					return err
				}
				ac := acs.Contract{ID: []byte(c.id), Stakeholders: st}
				if list.out == &acts && fault.skip(tx.seq, v, c, l) {
					l.missing = append(l.missing, ac)
					continue
				}
				*list.out = append(*list.out, ac)
			}
		}
	}
	return l.running.Update(acts, deacts)
}

// lastExchange posts every participant's commitments for the last
// interval where the run stopped inside it, as a synchronizer does when it
// stops: every transaction is covered by an exchange, so a fault injected
// near the end is found and repaired like any other, not left for the
// final check to report as a disagreement. It runs once every transaction
// has been delivered (finish), when every participant has applied the same
// number.
func (w *syncWorld) lastExchange() {
	interval := uint64(w.o.Interval)
	for _, p := range w.parts {
		l := p.acs
		l.mu.Lock()
		partial := l.applied%interval != 0
		var post commitmentPost
		if partial {
			post = commitmentPost{l.applied/interval + 1, l.commitments()}
		}
		l.mu.Unlock()
		if partial {
			w.exchange(l.self, post)
		}
	}
}

// commitments returns the participant's commitment for every
// counter-participant: incrementally on fanseal's side, from scratch on
// the baseline.
func (l *activeContracts) commitments() map[acs.ParticipantID][32]byte {
	snap := l.running.Snapshot()
	if l.side == Fanseal {
		l.committer.Apply(snap)
		return l.committer.Commitments()
	}
	cm, _ := acs.Scratch(snap, l.hosting, l.self, 1)
	return cm
}

// final returns the commitments of the participant's final state, from
// scratch, and whether its incremental ones (fanseal's side) differ.
func (l *activeContracts) final() (map[acs.ParticipantID][32]byte, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pending) > 0 {
		return nil, false, fmt.Errorf("%s: %d transactions never applied", l.self, len(l.pending))
	}
	snap := l.running.Snapshot()
	scratch, err := acs.Scratch(snap, l.hosting, l.self, 0)
	if err != nil || l.committer == nil {
		return scratch, false, err
	}
	if err := l.committer.Apply(snap); err != nil {
		return nil, false, err
	}
	return scratch, !maps.Equal(scratch, l.committer.Commitments()), nil
}

// A mismatch is a pair of participants whose commitments to each other
// differ at the end of an interval of transactions [From, To).
type mismatch struct {
	From, To uint64
	A, B     acs.ParticipantID
}

func (m mismatch) String() string { return fmt.Sprintf("%s–%s in [%d, %d)", m.A, m.B, m.From, m.To) }

// A board is where participants exchange commitments: each compares its
// commitment for every counter-participant with the counter-participant's
// for it, as soon as both are posted.
type board struct {
	mu         sync.Mutex
	n          int
	interval   uint64
	ticks      map[uint64]map[acs.ParticipantID]map[acs.ParticipantID][32]byte
	mismatches []mismatch
	exchanges  atomic.Int64
}

func newBoard(n, interval int) *board {
	return &board{n: n, interval: uint64(interval), ticks: map[uint64]map[acs.ParticipantID]map[acs.ParticipantID][32]byte{}}
}

// post records self's commitments at the end of interval tick and returns
// the mismatches it reveals.
func (b *board) post(tick uint64, self acs.ParticipantID, cm map[acs.ParticipantID][32]byte) []mismatch {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.ticks[tick]
	if t == nil {
		t = map[acs.ParticipantID]map[acs.ParticipantID][32]byte{}
		b.ticks[tick] = t
	}
	var found []mismatch
	for other, theirs := range t {
		mine, ok := cm[other]
		back, ok2 := theirs[self]
		if ok != ok2 || mine != back {
			found = append(found, mismatch{From: (tick - 1) * b.interval, To: tick * b.interval, A: min(self, other), B: max(self, other)})
		}
	}
	t[self] = cm
	if len(t) == b.n {
		delete(b.ticks, tick)
		b.exchanges.Add(1)
	}
	b.mismatches = append(b.mismatches, found...)
	return found
}

func (b *board) mismatchList() []mismatch {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.mismatches)
}

// missingFault makes one validator miss the view-0 contract activation of
// transaction at (at 0: no fault), and repairs it once a commitment
// exchange has found it.
type missingFault struct {
	at       uint64
	mu       sync.Mutex
	victim   acs.ParticipantID
	repaired bool
}

// skip reports whether participant l must miss contract c of view v of
// transaction seq: the validator hosting its validator party.
func (f *missingFault) skip(seq uint64, v int, c contract, l *activeContracts) bool {
	if f.at == 0 || seq != f.at || v != 0 || l.hosts[c.parties[len(c.parties)-1]] != l.index {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.victim = l.self
	return true
}

func (f *missingFault) injected() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.victim == "" {
		return 0
	}
	return 1
}

// repair applies the missing contract at the victim once a mismatch names
// it, as an operator's repair would.
func (f *missingFault) repair(parts []*participant, found []mismatch) {
	f.mu.Lock()
	victim := f.victim
	f.mu.Unlock()
	for _, m := range found {
		if m.A != victim && m.B != victim {
			continue
		}
		for _, p := range parts {
			if acs.ParticipantID(p.name) != victim {
				continue
			}
			l := p.acs
			l.mu.Lock()
			if len(l.missing) > 0 {
				l.running.Update(l.missing, nil)
				l.missing = nil
				f.mu.Lock()
				f.repaired = true
				f.mu.Unlock()
			}
			l.mu.Unlock()
		}
	}
}

// found checks that the first mismatches name exactly the victim's pairs
// with the sender and the receiver, in the interval of the fault, and
// that the fault was repaired.
func (f *missingFault) found(ms []mismatch, interval int) (bool, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	from := f.at / uint64(interval) * uint64(interval)
	want := []mismatch{
		{From: from, To: from + uint64(interval), A: min(f.victim, "sender"), B: max(f.victim, "sender")},
		{From: from, To: from + uint64(interval), A: min(f.victim, "receiver"), B: max(f.victim, "receiver")},
	}
	var first []mismatch
	for _, m := range ms {
		if m.From == from {
			first = append(first, m)
		}
	}
	slices.SortFunc(first, func(a, b mismatch) int { return cmp.Compare(string(a.A+a.B), string(b.A+b.B)) })
	slices.SortFunc(want, func(a, b mismatch) int { return cmp.Compare(string(a.A+a.B), string(b.A+b.B)) })
	ok := slices.Equal(first, want) && f.repaired
	return ok, fmt.Sprintf("%s missed a contract of transaction %d; found %v, repaired %v", f.victim, f.at, first, f.repaired)
}

// finalCheck compares every pair's commitments of the final state,
// recomputed from scratch, and counts the participants whose incremental
// commitments differ from them.
func (w *syncWorld) finalCheck() (bad []string, incremental int, err error) {
	cms := make(map[acs.ParticipantID]map[acs.ParticipantID][32]byte, len(w.parts))
	for _, p := range w.parts {
		cm, differ, err := p.acs.final()
		if err != nil {
			return nil, 0, err
		}
		if differ {
			incremental++
		}
		cms[acs.ParticipantID(p.name)] = cm
	}
	for a, am := range cms {
		for b, bm := range cms {
			if a >= b {
				continue
			}
			x, ok := am[b]
			y, ok2 := bm[a]
			if ok != ok2 || x != y {
				bad = append(bad, fmt.Sprintf("%s–%s", a, b))
			}
		}
	}
	slices.Sort(bad)
	return bad, incremental, nil
}
