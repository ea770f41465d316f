package acs

import (
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/lthash"
)

// A Group is a stakeholder set and the LtHash16 of its active contracts.
// A Group's Digest in a Snapshot is immutable: never modify it.
type Group struct {
	Stakeholders Stakeholders
	Digest       *lthash.Hash16
}

// A Snapshot is the state of a Running at one point: every non-empty
// group's digest, and the keys of the groups changed since the previous
// snapshot (including groups that became empty and were dropped).
type Snapshot struct {
	XOF     lthash.XOF
	Groups  map[string]Group
	Changed []string
}

// Running is the running commitment of an active contract set: one
// LtHash16 per stakeholder group. It is not safe for concurrent use; its
// Update parallelises internally.
type Running struct {
	xof lthash.XOF
	// Parallelism bounds the groups updated at once; 0 means GOMAXPROCS.
	Parallelism int
	groups      map[string]Group
	changed     map[string]struct{}
}

// NewRunning returns an empty Running whose group hashes use xof.
func NewRunning(xof lthash.XOF) (*Running, error) {
	if _, err := lthash.New(xof); err != nil {
		return nil, err
	}
	return &Running{xof: xof, groups: map[string]Group{}, changed: map[string]struct{}{}}, nil
}

type groupBatch struct {
	key  string
	st   Stakeholders
	adds []*Contract
	subs []*Contract
	out  *lthash.Hash16
}

// Update applies a batch of activations and deactivations. Changes are
// grouped by stakeholder set and the groups are hashed in parallel (at
// most Parallelism at once, as a sliding window); the result is the same
// as applying the changes one by one, in any order. A changed group gets
// a new Digest (copy on write), so Snapshots taken earlier do not change.
func (r *Running) Update(activations, deactivations []Contract) error {
	batches := map[string]*groupBatch{}
	var order []*groupBatch
	collect := func(cs []Contract, add bool) error {
		for i := range cs {
			c := &cs[i]
			if c.Stakeholders.key == "" {
				return fmt.Errorf("%w: contract %x", ErrNoStakeholders, c.ID)
			}
			b := batches[c.Stakeholders.key]
			if b == nil {
				b = &groupBatch{key: c.Stakeholders.key, st: c.Stakeholders}
				batches[b.key] = b
				order = append(order, b)
			}
			if add {
				b.adds = append(b.adds, c)
			} else {
				b.subs = append(b.subs, c)
			}
		}
		return nil
	}
	if err := collect(activations, true); err != nil {
		return err
	}
	if err := collect(deactivations, false); err != nil {
		return err
	}
	var eg errgroup.Group
	eg.SetLimit(r.parallelism())
	for _, b := range order {
		if g, ok := r.groups[b.key]; ok {
			b.out = g.Digest.Clone()
		} else {
			b.out, _ = lthash.New(r.xof)
		}
		eg.Go(func() error {
			var elem []byte
			for _, c := range b.adds {
				elem = c.appendElement(elem[:0])
				b.out.Add(elem)
			}
			for _, c := range b.subs {
				elem = c.appendElement(elem[:0])
				b.out.Remove(elem)
			}
			return nil
		})
	}
	eg.Wait()
	for _, b := range order {
		r.changed[b.key] = struct{}{}
		if b.out.IsZero() {
			delete(r.groups, b.key)
		} else {
			r.groups[b.key] = Group{Stakeholders: b.st, Digest: b.out}
		}
	}
	return nil
}

func (r *Running) parallelism() int {
	if r.Parallelism > 0 {
		return r.Parallelism
	}
	return runtime.GOMAXPROCS(0)
}

// Snapshot returns the current groups and those changed since the last
// Snapshot. It copies the group map (not the digests, which are
// immutable).
func (r *Running) Snapshot() Snapshot {
	s := Snapshot{XOF: r.xof, Groups: make(map[string]Group, len(r.groups)), Changed: make([]string, 0, len(r.changed))}
	for k, g := range r.groups {
		s.Groups[k] = g
	}
	for k := range r.changed {
		s.Changed = append(s.Changed, k)
	}
	clear(r.changed)
	return s
}

// Len returns the number of non-empty groups.
func (r *Running) Len() int { return len(r.groups) }
