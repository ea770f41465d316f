package acs

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"go.uber.org/goleak"

	"github.com/fanseal/fanseal/lthash"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func mustStakeholders(t testing.TB, ps ...PartyID) Stakeholders {
	s, err := NewStakeholders(ps...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sameCommitments(a, b map[ParticipantID][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for p, x := range a {
		if y, ok := b[p]; !ok || !bytes.Equal(x[:], y[:]) {
			return false
		}
	}
	return true
}

func TestStakeholders(t *testing.T) {
	a := mustStakeholders(t, "bob", "alice", "bob")
	b := mustStakeholders(t, "alice", "bob")
	if a.Key() != b.Key() || a.String() != "{alice,bob}" || len(a.Parties()) != 2 {
		t.Fatalf("not canonical: %q %q %s", a.Key(), b.Key(), a)
	}
	// Length prefixes keep {"ab","c"} and {"a","bc"} apart.
	if mustStakeholders(t, "ab", "c").Key() == mustStakeholders(t, "a", "bc").Key() {
		t.Fatal("stakeholder keys collide")
	}
	if _, err := NewStakeholders(); !errors.Is(err, ErrNoStakeholders) {
		t.Fatalf("empty set: %v", err)
	}
	if _, err := NewStakeholders("alice", ""); !errors.Is(err, ErrEmptyID) {
		t.Fatalf("empty party: %v", err)
	}
	r, _ := NewRunning(lthash.BLAKE3)
	if err := r.Update([]Contract{{ID: []byte("c")}}, nil); !errors.Is(err, ErrNoStakeholders) {
		t.Fatalf("contract without stakeholders: %v", err)
	}
	if _, err := NewRunning(7); !errors.Is(err, lthash.ErrXOF) {
		t.Fatalf("unknown XOF: %v", err)
	}
}

// world is a random synchronizer: participants hosting parties, and
// stakeholder groups that each include a party hosted by "p0".
type world struct {
	hosting      Hosting
	participants []ParticipantID
	groups       []Stakeholders
}

func newWorld(r *rand.Rand, participants, groups int) *world {
	w := &world{hosting: Hosting{}}
	var parties []PartyID
	for i := range participants {
		p := ParticipantID(fmt.Sprintf("p%d", i))
		w.participants = append(w.participants, p)
		for j := range 2 {
			party := PartyID(fmt.Sprintf("party-%d-%d", i, j))
			w.hosting[party] = p
			parties = append(parties, party)
		}
	}
	for range groups {
		ps := []PartyID{parties[r.IntN(2)]} // one of p0's
		for range 1 + r.IntN(3) {
			ps = append(ps, parties[r.IntN(len(parties))])
		}
		st, _ := NewStakeholders(ps...)
		w.groups = append(w.groups, st)
	}
	return w
}

func contract(st Stakeholders, id int) Contract {
	return Contract{ID: fmt.Appendf(nil, "contract-%08d", id), Reassignment: uint64(id % 3), Stakeholders: st}
}

// TestUpdateMatchesOneByOne applies random batches in parallel and one
// change at a time, and compares.
func TestUpdateMatchesOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	w := newWorld(r, 10, 40)
	par, _ := NewRunning(lthash.BLAKE3)
	par.Parallelism = 4
	seq, _ := NewRunning(lthash.BLAKE3)
	active := map[int]Contract{}
	next := 0
	for range 20 {
		var acts, deacts []Contract
		for range r.IntN(30) {
			c := contract(w.groups[r.IntN(len(w.groups))], next)
			next++
			acts = append(acts, c)
			active[next-1] = c
		}
		for id, c := range active {
			if r.IntN(4) == 0 {
				deacts = append(deacts, c)
				delete(active, id)
			}
		}
		if err := par.Update(acts, deacts); err != nil {
			t.Fatal(err)
		}
		for _, c := range acts {
			seq.Update([]Contract{c}, nil)
		}
		for _, c := range deacts {
			seq.Update(nil, []Contract{c})
		}
		a, b := par.Snapshot(), seq.Snapshot()
		if len(a.Groups) != len(b.Groups) {
			t.Fatalf("%d groups vs %d", len(a.Groups), len(b.Groups))
		}
		for k, g := range a.Groups {
			if !g.Digest.Equal(b.Groups[k].Digest) {
				t.Fatalf("group %s differs", g.Stakeholders)
			}
		}
	}
}

func TestSnapshot(t *testing.T) {
	r, _ := NewRunning(lthash.BLAKE2Xb)
	ab := mustStakeholders(t, "a", "b")
	bc := mustStakeholders(t, "b", "c")
	c1, c2 := contract(ab, 1), contract(bc, 2)
	r.Update([]Contract{c1, c2}, nil)
	s1 := r.Snapshot()
	if len(s1.Groups) != 2 || len(s1.Changed) != 2 {
		t.Fatalf("snapshot 1: %d groups, %d changed", len(s1.Groups), len(s1.Changed))
	}
	before := s1.Groups[ab.Key()].Digest.Bytes()
	r.Update(nil, []Contract{c1})
	s2 := r.Snapshot()
	if _, ok := s2.Groups[ab.Key()]; ok || len(s2.Groups) != 1 || len(s2.Changed) != 1 || s2.Changed[0] != ab.Key() {
		t.Fatalf("emptied group not dropped: %v", s2.Changed)
	}
	if !bytes.Equal(s1.Groups[ab.Key()].Digest.Bytes(), before) {
		t.Fatal("an update changed an earlier snapshot")
	}
	if s3 := r.Snapshot(); len(s3.Changed) != 0 {
		t.Fatal("changes reported twice")
	}
	// A deactivation of a contract never activated subtracts: the group
	// appears, and the later activation cancels it.
	r.Update(nil, []Contract{c1})
	if r.Len() != 2 {
		t.Fatal("a lone deactivation did not register")
	}
	r.Update([]Contract{c1}, nil)
	if r.Len() != 1 {
		t.Fatal("activation did not cancel the early deactivation")
	}
	// The reassignment counter is part of the element.
	moved := c2
	moved.Reassignment++
	r.Update([]Contract{moved}, []Contract{c2})
	if s := r.Snapshot(); s.Groups[bc.Key()].Digest.Equal(s1.Groups[bc.Key()].Digest) {
		t.Fatal("reassignment counter ignored")
	}
}

func TestCommitmentsAgree(t *testing.T) {
	hosting := Hosting{"alice": "P1", "bob": "P2", "carol": "P3"}
	ab := mustStakeholders(t, "alice", "bob")
	abc := mustStakeholders(t, "alice", "bob", "carol")
	bc := mustStakeholders(t, "bob", "carol")
	// P1 sees groups with alice; P2 sees groups with bob.
	p1, _ := NewRunning(lthash.BLAKE3)
	p2, _ := NewRunning(lthash.BLAKE3)
	p1.Update([]Contract{contract(ab, 1), contract(abc, 2)}, nil)
	p2.Update([]Contract{contract(abc, 2), contract(ab, 1), contract(bc, 3)}, nil)
	c1, err := Scratch(p1.Snapshot(), hosting, "P1", 0)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := Scratch(p2.Snapshot(), hosting, "P2", 0)
	if c1["P2"] != c2["P1"] {
		t.Fatal("P1 and P2 disagree though they share the same contracts")
	}
	if _, ok := c1["P1"]; ok || len(c1) != 2 || len(c2) != 2 {
		t.Fatalf("commitment sets: %v %v", len(c1), len(c2))
	}
	// A contract P2 lacks is noticed.
	p1.Update([]Contract{contract(ab, 4)}, nil)
	c1, _ = Scratch(p1.Snapshot(), hosting, "P1", 0)
	if c1["P2"] == c2["P1"] {
		t.Fatal("commitment ignores a missing contract")
	}
	// A participant hosting no party commits to nothing.
	none, _ := Scratch(p1.Snapshot(), hosting, "P9", 0)
	if len(none) != 0 {
		t.Fatalf("participant hosting nothing has %d commitments", len(none))
	}
	if _, err := Scratch(p1.Snapshot(), hosting, "", 0); !errors.Is(err, ErrEmptyID) {
		t.Fatalf("empty participant: %v", err)
	}
}

// TestIncrementalMatchesScratch runs many random rounds of updates (groups
// emptying and reappearing, hosting changes) and checks the incremental
// commitments against from-scratch ones after each.
func TestIncrementalMatchesScratch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	w := newWorld(r, 8, 30)
	run, _ := NewRunning(lthash.BLAKE3)
	com, _ := NewCommitter("p0", w.hosting, lthash.BLAKE3)
	active := map[string][]Contract{}
	next := 0
	for round := range 60 {
		var acts, deacts []Contract
		for range r.IntN(20) {
			st := w.groups[r.IntN(len(w.groups))]
			c := contract(st, next)
			next++
			acts = append(acts, c)
			active[st.Key()] = append(active[st.Key()], c)
		}
		if round%5 == 4 { // empty some groups entirely
			for k, cs := range active {
				if r.IntN(3) == 0 {
					deacts = append(deacts, cs...)
					delete(active, k)
				}
			}
		}
		run.Update(acts, deacts)
		snap := run.Snapshot()
		if round%13 == 12 { // a party moves to another participant
			w.hosting[PartyID(fmt.Sprintf("party-%d-1", 1+r.IntN(7)))] = w.participants[r.IntN(8)]
			com.SetHosting(w.hosting, snap)
		} else if err := com.Apply(snap); err != nil {
			t.Fatal(err)
		}
		want, _ := Scratch(snap, w.hosting, "p0", 3)
		if got := com.Commitments(); !sameCommitments(got, want) {
			t.Fatalf("round %d: incremental and scratch commitments differ (%d vs %d)", round, len(got), len(want))
		}
	}
	other, _ := NewRunning(lthash.BLAKE2Xb)
	if err := com.Apply(other.Snapshot()); !errors.Is(err, lthash.ErrXOF) {
		t.Fatalf("snapshot of another XOF: %v", err)
	}
}

func Example() {
	hosting := Hosting{"alice": "P1", "bob": "P2"}
	shared, _ := NewStakeholders("alice", "bob")
	iou := Contract{ID: []byte("iou-17"), Stakeholders: shared}

	// Each participant keeps its own running commitment.
	p1, _ := NewRunning(lthash.BLAKE3)
	p2, _ := NewRunning(lthash.BLAKE3)
	p1.Update([]Contract{iou}, nil)
	p2.Update([]Contract{iou}, nil)

	c1, _ := Scratch(p1.Snapshot(), hosting, "P1", 0)
	c2, _ := Scratch(p2.Snapshot(), hosting, "P2", 0)
	fmt.Println("P1 and P2 agree:", c1["P2"] == c2["P1"])
	// Output: P1 and P2 agree: true
}
