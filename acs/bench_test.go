package acs

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fanseal/fanseal/lthash"
)

// BenchmarkUpdate applies 100 000 activations spread over 10 000 groups to
// an empty Running, with 1 and 2 workers.
func BenchmarkUpdate(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	w := newWorld(r, 500, 10000)
	acts := make([]Contract, 100000)
	for i := range acts {
		acts[i] = contract(w.groups[r.IntN(len(w.groups))], i)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("groups=10000/changes=100000/workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				run, _ := NewRunning(lthash.BLAKE3)
				run.Parallelism = workers
				if err := run.Update(acts, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPerParticipant computes p0's commitments for every
// counter-participant after 1% of 10 000 groups changed: from scratch, and
// incrementally (Apply of the changed groups, then Commitments).
func BenchmarkPerParticipant(b *testing.B) {
	for _, participants := range []int{50, 500} {
		r := rand.New(rand.NewPCG(6, uint64(participants)))
		w := newWorld(r, participants, 10000)
		run, _ := NewRunning(lthash.BLAKE3)
		var acts []Contract
		for i, st := range w.groups {
			acts = append(acts, contract(st, i))
		}
		run.Update(acts, nil)
		s0 := run.Snapshot()
		// s1 changes 1% of the groups; going back from s1 to s0 changes
		// the same groups again, so the incremental loop alternates.
		var more []Contract
		for i := range len(w.groups) / 100 {
			more = append(more, contract(w.groups[i*100], 1000000+i))
		}
		run.Update(more, nil)
		s1 := run.Snapshot()
		run.Update(nil, more)
		back := run.Snapshot()
		b.Run(fmt.Sprintf("participants=%d/groups=10000/mode=scratch/changed=1%%", participants), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Scratch(s1, w.hosting, "p0", 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("participants=%d/groups=10000/mode=incremental/changed=1%%", participants), func(b *testing.B) {
			c, _ := NewCommitter("p0", w.hosting, lthash.BLAKE3)
			c.rebuild(s0)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s := s1
				if i%2 == 1 {
					s = back
				}
				i++
				c.Apply(s)
				c.Commitments()
			}
		})
	}
}
