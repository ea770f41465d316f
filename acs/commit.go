package acs

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/lthash"
)

const commitmentTag = "fanseal/acs/v1 commitment"

// Hosting says which participant hosts each party.
type Hosting map[PartyID]ParticipantID

// counterParticipants returns the participants other than self that host a
// stakeholder of st, if self hosts one too; nil otherwise.
func counterParticipants(st Stakeholders, hosting Hosting, self ParticipantID) []ParticipantID {
	var out []ParticipantID
	mine := false
	for _, p := range st.parties {
		h, ok := hosting[p]
		switch {
		case !ok:
		case h == self:
			mine = true
		case !slices.Contains(out, h):
			out = append(out, h)
		}
	}
	if !mine {
		return nil
	}
	return out
}

// groupElement is a group's contribution: uvarint(len(key)) || key || digest.
func groupElement(b []byte, key string, digest *lthash.Hash16) []byte {
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	return digest.AppendBytes(b)
}

// commitment hashes a combined hash between self and p.
func commitment(xof lthash.XOF, self, p ParticipantID, combined *lthash.Hash16) [32]byte {
	lo, hi := min(self, p), max(self, p)
	h := sha256.New()
	h.Write([]byte(commitmentTag))
	h.Write([]byte{0, byte(xof)})
	h.Write(binary.AppendUvarint(nil, uint64(len(lo))))
	h.Write([]byte(lo))
	h.Write(binary.AppendUvarint(nil, uint64(len(hi))))
	h.Write([]byte(hi))
	h.Write(combined.Bytes())
	return [32]byte(h.Sum(nil))
}

// Scratch computes self's commitment for every counter-participant from a
// whole snapshot: for each group hosted by self and P, the group's element
// is added to P's combined hash. Groups are processed in parallel (at most
// parallelism at once; 0 means GOMAXPROCS). A participant that shares no
// group with self gets no commitment; a self hosting no party gets an
// empty map.
func Scratch(s Snapshot, hosting Hosting, self ParticipantID, parallelism int) (map[ParticipantID][32]byte, error) {
	c, err := NewCommitter(self, hosting, s.XOF)
	if err != nil {
		return nil, err
	}
	c.Parallelism = parallelism
	c.rebuild(s)
	return c.Commitments(), nil
}

// A Committer maintains self's combined hash with every counter-participant
// across snapshots, incrementally. It is not safe for concurrent use.
type Committer struct {
	self    ParticipantID
	hosting Hosting
	xof     lthash.XOF
	// Parallelism bounds concurrent work; 0 means GOMAXPROCS.
	Parallelism int
	// contrib is, per group self shares, the element last added and the
	// counter-participants it was added to.
	contrib  map[string]contribution
	combined map[ParticipantID]*lthash.Hash16
	refs     map[ParticipantID]int // groups contributing to combined[p]
}

type contribution struct {
	elem []byte
	to   []ParticipantID
}

// NewCommitter returns a Committer for participant self with the given
// hosting, which it copies.
func NewCommitter(self ParticipantID, hosting Hosting, xof lthash.XOF) (*Committer, error) {
	if self == "" {
		return nil, fmt.Errorf("%w: participant", ErrEmptyID)
	}
	if _, err := lthash.New(xof); err != nil {
		return nil, err
	}
	h := make(Hosting, len(hosting))
	for k, v := range hosting {
		h[k] = v
	}
	return &Committer{self: self, hosting: h, xof: xof, contrib: map[string]contribution{}, combined: map[ParticipantID]*lthash.Hash16{}, refs: map[ParticipantID]int{}}, nil
}

func (c *Committer) parallelism() int {
	if c.Parallelism > 0 {
		return c.Parallelism
	}
	return runtime.GOMAXPROCS(0)
}

// rebuild recomputes every combined hash from the whole snapshot.
func (c *Committer) rebuild(s Snapshot) {
	clear(c.contrib)
	clear(c.combined)
	clear(c.refs)
	keys := make([]string, 0, len(s.Groups))
	for k := range s.Groups {
		keys = append(keys, k)
	}
	c.apply(s, keys)
}

// Apply brings the combined hashes to snapshot s, which must follow the
// previous one given to this Committer (its Changed lists every group
// changed since). Only the changed groups are touched: each one's old
// element is subtracted from, and its new element added to, the combined
// hash of each counter-participant it concerns.
func (c *Committer) Apply(s Snapshot) error {
	if s.XOF != c.xof {
		return fmt.Errorf("%w: snapshot of %s, committer of %s", lthash.ErrXOF, s.XOF, c.xof)
	}
	c.apply(s, s.Changed)
	return nil
}

// SetHosting changes who hosts which party. A party moving between
// participants changes which counter-participants each of its groups
// concerns, so this recomputes everything from snapshot s (the latest
// given to Apply): O(all groups), as Scratch.
func (c *Committer) SetHosting(h Hosting, s Snapshot) {
	c.hosting = make(Hosting, len(h))
	for k, v := range h {
		c.hosting[k] = v
	}
	c.rebuild(s)
}

// apply updates the contributions of the groups keys to their state in s.
// Element hashing (the expensive part) runs in parallel per group; the
// lane additions into shared combined hashes then run per participant.
func (c *Committer) apply(s Snapshot, keys []string) {
	type change struct {
		key     string
		old     contribution
		new     contribution
		oldHash *lthash.Hash16 // expansion of old.elem
		newHash *lthash.Hash16 // expansion of new.elem
	}
	changes := make([]*change, 0, len(keys))
	for _, k := range keys {
		ch := &change{key: k, old: c.contrib[k]}
		if g, ok := s.Groups[k]; ok {
			if to := counterParticipants(g.Stakeholders, c.hosting, c.self); len(to) > 0 {
				ch.new = contribution{elem: groupElement(nil, k, g.Digest), to: to}
			}
		}
		if ch.old.to == nil && ch.new.to == nil {
			continue
		}
		changes = append(changes, ch)
	}
	var eg errgroup.Group
	eg.SetLimit(c.parallelism())
	for _, ch := range changes {
		eg.Go(func() error {
			if ch.old.to != nil {
				ch.oldHash, _ = lthash.New(c.xof)
				ch.oldHash.Add(ch.old.elem)
			}
			if ch.new.to != nil {
				ch.newHash, _ = lthash.New(c.xof)
				ch.newHash.Add(ch.new.elem)
			}
			return nil
		})
	}
	eg.Wait()
	for _, ch := range changes {
		for _, p := range ch.old.to {
			c.combined[p].SubHash(ch.oldHash)
			if c.refs[p]--; c.refs[p] == 0 {
				delete(c.combined, p)
				delete(c.refs, p)
			}
		}
		for _, p := range ch.new.to {
			h := c.combined[p]
			if h == nil {
				h, _ = lthash.New(c.xof)
				c.combined[p] = h
			}
			h.AddHash(ch.newHash)
			c.refs[p]++
		}
		if ch.new.to == nil {
			delete(c.contrib, ch.key)
		} else {
			c.contrib[ch.key] = ch.new
		}
	}
}

// Commitments returns self's commitment for every counter-participant it
// shares a group with, computed in parallel.
func (c *Committer) Commitments() map[ParticipantID][32]byte {
	ps := make([]ParticipantID, 0, len(c.combined))
	for p := range c.combined {
		ps = append(ps, p)
	}
	out := make([][32]byte, len(ps))
	var eg errgroup.Group
	eg.SetLimit(c.parallelism())
	for i, p := range ps {
		eg.Go(func() error {
			out[i] = commitment(c.xof, c.self, p, c.combined[p])
			return nil
		})
	}
	eg.Wait()
	m := make(map[ParticipantID][32]byte, len(ps))
	for i, p := range ps {
		m[p] = out[i]
	}
	return m
}
