// Package acs keeps running commitments to a synchronizer's active
// contract set (ACS), so that two participants can check that they agree
// on the contracts they share without exchanging them.
//
// Active contracts are grouped by their stakeholder set. Running holds one
// LtHash16 per group, updated in O(changes) as contracts are activated and
// deactivated; independent groups are updated in parallel. The commitment
// a participant sends to a counter-participant P combines the digests of
// every group that has a stakeholder hosted by itself and one hosted by P.
// Because LtHash16 is homomorphic, a Committer keeps each
// counter-participant's combination and, on each new Snapshot, adjusts
// only for the groups that changed: O(changed groups × their
// counter-participants) per reconciliation interval instead of O(all
// groups).
//
// # Encodings
//
// A contract's element is its ID, prefixed with its length, followed by
// its reassignment counter, each length and counter an unsigned varint
// (encoding/binary.AppendUvarint):
//
//	element = uvarint(len(contract_id)) || contract_id || uvarint(reassignment_counter)
//
// The length makes the encoding injective: without it, an ID ending in
// the first bytes of a counter's varint gave the element of a shorter ID
// with a larger counter, ("x", 300) and ("x\xac", 2) alike, so two
// different active sets had equal commitments. Commitments computed
// before the length was added (without it) are therefore not comparable
// with these: both participants of a reconciliation must run a version
// that encodes elements the same way.
//
// A stakeholder set's key is the concatenation, over its parties in
// sorted order, of uvarint(len(party)) || party.
//
// A group's contribution to a commitment is the element
//
//	uvarint(len(key)) || key || digest
//
// where digest is the group's 2048-byte LtHash16, added to a fresh
// LtHash16 of the same XOF. The commitment between participants A and B
// (lo ≤ hi in byte order) is
//
//	SHA-256("fanseal/acs/v1 commitment" || 0x00 || xof ||
//	        uvarint(len(lo)) || lo || uvarint(len(hi)) || hi || combined)
//
// where xof is 1 for BLAKE2Xb and 2 for BLAKE3 and combined is the
// 2048-byte combined hash. Both sides compute the same bytes.
//
// Deactivating a contract that was never activated is not an error: the
// hash is of a multiset, and the element is subtracted (its group's
// multiplicity goes negative until it is activated).
package acs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A PartyID identifies a party (a stakeholder of contracts).
type PartyID string

// A ParticipantID identifies a participant node, which hosts parties.
type ParticipantID string

// Errors.
var (
	ErrNoStakeholders = errors.New("acs: contract with no stakeholders")
	ErrEmptyID        = errors.New("acs: empty identifier")
)

// A Stakeholders is a canonical (sorted, duplicate-free) set of parties.
type Stakeholders struct {
	key     string
	parties []PartyID
}

// NewStakeholders returns the canonical set of parties. It refuses an
// empty set and empty party IDs.
func NewStakeholders(parties ...PartyID) (Stakeholders, error) {
	if len(parties) == 0 {
		return Stakeholders{}, ErrNoStakeholders
	}
	ps := slices.Clone(parties)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	var key []byte
	for _, p := range ps {
		if p == "" {
			return Stakeholders{}, fmt.Errorf("%w: party", ErrEmptyID)
		}
		key = binary.AppendUvarint(key, uint64(len(p)))
		key = append(key, p...)
	}
	return Stakeholders{key: string(key), parties: ps}, nil
}

// Key returns the set's deterministic key.
func (s Stakeholders) Key() string { return s.key }

// Parties returns the sorted parties. The caller must not modify it.
func (s Stakeholders) Parties() []PartyID { return s.parties }

// String returns the parties joined by commas.
func (s Stakeholders) String() string {
	names := make([]string, len(s.parties))
	for i, p := range s.parties {
		names[i] = string(p)
	}
	return "{" + strings.Join(names, ",") + "}"
}

// A Contract is a change to the active set: the contract, its
// reassignment counter, and its stakeholders.
type Contract struct {
	ID           []byte
	Reassignment uint64
	Stakeholders Stakeholders
}

// appendElement appends the contract's LtHash16 element:
// uvarint(len(ID)) || ID || uvarint(Reassignment).
func (c *Contract) appendElement(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(c.ID)))
	b = append(b, c.ID...)
	return binary.AppendUvarint(b, c.Reassignment)
}
