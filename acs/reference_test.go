package acs

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fanseal/fanseal/lthash"
)

// naiveACS is a reference written from the package documentation's
// definitions alone: plain maps of active contracts per stakeholder set,
// hashed from scratch. It shares nothing with the package but lthash.
type naiveACS struct {
	parties map[string][]PartyID      // stakeholder key -> sorted parties
	active  map[string]map[string]int // stakeholder key -> element -> multiplicity
}

func newNaive() *naiveACS {
	return &naiveACS{parties: map[string][]PartyID{}, active: map[string]map[string]int{}}
}

// naiveKey is the documented stakeholder key: over the sorted, distinct
// parties, uvarint(len(party)) || party.
func naiveKey(parties []PartyID) (string, []PartyID) {
	ps := slices.Clone(parties)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	var key []byte
	for _, p := range ps {
		key = binary.AppendUvarint(key, uint64(len(p)))
		key = append(key, p...)
	}
	return string(key), ps
}

// change records an activation (+1) or deactivation (−1) of a contract
// given by its fields.
func (n *naiveACS) change(id []byte, reassignment uint64, parties []PartyID, delta int) {
	key, ps := naiveKey(parties)
	n.parties[key] = ps
	if n.active[key] == nil {
		n.active[key] = map[string]int{}
	}
	// uvarint(len(id)) || id || uvarint(counter)
	elem := binary.AppendUvarint(nil, uint64(len(id)))
	elem = append(elem, id...)
	elem = binary.AppendUvarint(elem, reassignment)
	n.active[key][string(elem)] += delta
}

// commitments computes self's commitments from the definitions: for every
// stakeholder set with an active contract and a stakeholder hosted by
// self, the element uvarint(len(key)) || key || digest goes into the
// combined hash of every other participant hosting one of its
// stakeholders; each combined hash is then bound to the pair by SHA-256.
func (n *naiveACS) commitments(xof lthash.XOF, hosting Hosting, self ParticipantID) map[ParticipantID][32]byte {
	combined := map[ParticipantID]*lthash.Hash16{}
	for key, elems := range n.active {
		digest, _ := lthash.New(xof)
		for elem, m := range elems {
			for ; m > 0; m-- {
				digest.Add([]byte(elem))
			}
			for ; m < 0; m++ {
				digest.Remove([]byte(elem))
			}
		}
		if digest.IsZero() {
			continue // an empty group is no group
		}
		hosts := map[ParticipantID]bool{}
		for _, p := range n.parties[key] {
			if h, ok := hosting[p]; ok {
				hosts[h] = true
			}
		}
		if !hosts[self] {
			continue
		}
		elem := binary.AppendUvarint(nil, uint64(len(key)))
		elem = append(elem, key...)
		elem = append(elem, digest.Bytes()...)
		for p := range hosts {
			if p == self {
				continue
			}
			if combined[p] == nil {
				combined[p], _ = lthash.New(xof)
			}
			combined[p].Add(elem)
		}
	}
	out := map[ParticipantID][32]byte{}
	for p, h := range combined {
		lo, hi := string(self), string(p)
		if hi < lo {
			lo, hi = hi, lo
		}
		var b []byte
		b = append(b, "fanseal/acs/v1 commitment"...)
		b = append(b, 0, map[lthash.XOF]byte{lthash.BLAKE2Xb: 1, lthash.BLAKE3: 2}[xof])
		b = binary.AppendUvarint(b, uint64(len(lo)))
		b = append(b, lo...)
		b = binary.AppendUvarint(b, uint64(len(hi)))
		b = append(b, hi...)
		b = append(b, h.Bytes()...)
		out[p] = sha256.Sum256(b)
	}
	return out
}

// TestMatchesNaiveReference runs random rounds of activations,
// deactivations (groups emptying and reappearing) and hosting changes,
// and compares both the incremental Committer and Scratch with the naive
// reference after each round, for every participant's point of view.
func TestMatchesNaiveReference(t *testing.T) {
	for _, xof := range []lthash.XOF{lthash.BLAKE3, lthash.BLAKE2Xb} {
		t.Run(xof.String(), func(t *testing.T) {
			rounds := 40
			if xof == lthash.BLAKE2Xb || testing.Short() {
				rounds = 15
			}
			r := rand.New(rand.NewPCG(5, uint64(xof)))
			w := newWorld(r, 6, 25)
			// Parties nobody hosts (yet) count for no participant.
			for _, ps := range [][]PartyID{{"party-0-0", "outsider"}, {"party-0-1", "party-2-0", "outsider"}} {
				st, _ := NewStakeholders(ps...)
				w.groups = append(w.groups, st)
			}
			run, _ := NewRunning(xof)
			selves := []ParticipantID{"p0", "p1", "p3"}
			coms := map[ParticipantID]*Committer{}
			for _, s := range selves {
				coms[s], _ = NewCommitter(s, w.hosting, xof)
			}
			naive := newNaive()
			var active []Contract
			next, compared := 0, 0
			for round := range rounds {
				var acts, deacts []Contract
				for range r.IntN(15) {
					c := contract(w.groups[r.IntN(len(w.groups))], next)
					next++
					acts = append(acts, c)
				}
				keep := active[:0]
				for _, c := range active {
					if r.IntN(4) == 0 || round%7 == 6 {
						deacts = append(deacts, c)
					} else {
						keep = append(keep, c)
					}
				}
				active = append(keep, acts...)
				if round%9 == 4 { // a contract deactivated before it was ever activated
					ghost := contract(w.groups[0], 1_000_000+round)
					deacts = append(deacts, ghost)
				}
				if err := run.Update(acts, deacts); err != nil {
					t.Fatal(err)
				}
				for _, c := range acts {
					naive.change(c.ID, c.Reassignment, c.Stakeholders.Parties(), +1)
				}
				for _, c := range deacts {
					naive.change(c.ID, c.Reassignment, c.Stakeholders.Parties(), -1)
				}
				snap := run.Snapshot()
				moved := round%6 == 5
				if moved { // a party moves to another participant
					w.hosting[PartyID(fmt.Sprintf("party-%d-%d", r.IntN(6), r.IntN(2)))] = w.participants[r.IntN(6)]
				}
				for _, self := range selves {
					if moved {
						coms[self].SetHosting(w.hosting, snap)
					} else if err := coms[self].Apply(snap); err != nil {
						t.Fatal(err)
					}
					want := naive.commitments(xof, w.hosting, self)
					if got := coms[self].Commitments(); !sameCommitments(got, want) {
						t.Fatalf("round %d, %s: incremental commitments differ from the reference (%d vs %d counter-participants)", round, self, len(got), len(want))
					}
					got, err := Scratch(snap, w.hosting, self, 2)
					if err != nil {
						t.Fatal(err)
					}
					if !sameCommitments(got, want) {
						t.Fatalf("round %d, %s: scratch commitments differ from the reference (%d vs %d counter-participants)", round, self, len(got), len(want))
					}
					compared += len(want)
				}
			}
			if compared < rounds*len(selves) {
				t.Fatalf("only %d commitments compared in %d rounds", compared, rounds)
			}
		})
	}
}

// TestContractElementsDoNotCollide: a contract ID that ends like the
// varint of a reassignment counter does not make two active sets equal.
// Without a length before the ID, ("x", 300) and ("x\xac", 2) were both
// the bytes 78 ac 02, so the two sets had one commitment.
func TestContractElementsDoNotCollide(t *testing.T) {
	st, _ := NewStakeholders("alice", "bob")
	hosting := Hosting{"alice": "p0", "bob": "p1"}
	for _, xof := range []lthash.XOF{lthash.BLAKE3, lthash.BLAKE2Xb} {
		commit := func(id string, counter uint64) [32]byte {
			run, _ := NewRunning(xof)
			if err := run.Update([]Contract{{ID: []byte(id), Reassignment: counter, Stakeholders: st}}, nil); err != nil {
				t.Fatal(err)
			}
			got, err := Scratch(run.Snapshot(), hosting, "p0", 1)
			if err != nil {
				t.Fatal(err)
			}
			naive := newNaive()
			naive.change([]byte(id), counter, st.Parties(), +1)
			if want := naive.commitments(xof, hosting, "p0"); !sameCommitments(got, want) {
				t.Fatalf("%s: (%q, %d): the commitment differs from the reference", xof, id, counter)
			}
			return got["p1"]
		}
		if commit("x", 300) == commit("x\xac", 2) {
			t.Errorf("%s: (\"x\", 300) and (\"x\\xac\", 2) give one commitment", xof)
		}
	}
}
