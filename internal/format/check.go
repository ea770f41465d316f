package format

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/fanseal/fanseal/internal/errs"
)

// PostQuantum reports whether kem is a known post-quantum suite.
func PostQuantum(kem uint16) bool { return kem == KEMMLKEM768X25519 }

// recipientKey names a recipient stanza for the duplicate check.
type recipientKey struct {
	kem uint16
	id  [KeyIDSize]byte
}

// An ephemeral is a StanzaEphemeral found by check.
type ephemeral struct {
	kem   uint16
	enc   []byte
	index int
	used  bool
}

// check validates the framing of every stanza of the header, whoever it is
// for, without decoding any key: the rules of docs/FORMAT.md, "What a
// reader checks", 4 to 11. Its verdict depends only on the header: not on
// the reader's identities, and not on where the reader's own stanza is.
// It costs a constant amount of work per stanza, allocates nothing per
// stanza, and uses a table of 2 to 4 slots of 12 bytes per stanza (at most
// 32 768 slots, 384 KiB, for MaxStanzas), recycled between headers.
func (h *Header) check() error {
	anon := h.Anonymous()
	var (
		recipients int
		seen       *idSet
		pqAt, dhAt = -1, -1 // the first post-quantum and classical stanzas
		ephemerals []ephemeral
		malformed  = func(i int, format string, a ...any) error {
			return fmt.Errorf("%w: stanza %d: %s", errs.Malformed, i, fmt.Sprintf(format, a...))
		}
	)
	if !anon {
		seen = newIDSet(h.Count)
		defer seen.release()
	}
	for st := range h.Stanzas() {
		i, body := st.Index, st.Body
		switch st.Type {
		case StanzaHPKE, StanzaChannel:
			if h.Private() { // rule 5a
				return malformed(i, "%s stanza in a private envelope, which holds only shared, ssh-rsa and age stanzas", typeName(st.Type))
			}
		}
		switch st.Type {
		case StanzaHPKE, StanzaShared, StanzaChannel, StanzaEphemeral:
		case StanzaRSA, StanzaScrypt, StanzaAge:
			if err := h.checkOther(st, seen); err != nil {
				return err
			}
			dhAt = keepFirst(dhAt, i) // rule 11: all three are classical
			if recipients++; recipients > MaxRecipients {
				return malformed(i, "more than %d recipient stanzas", MaxRecipients)
			}
			continue
		default:
			continue // unknown types are skipped; the MAC covers them
		}
		// Rule 8: room for the suite and, where present, the identifier.
		need := 2
		if st.Type == StanzaChannel || st.Type != StanzaEphemeral && !anon {
			need += KeyIDSize
		}
		if len(body) < need {
			return malformed(i, "%s stanza of %d bytes cannot hold its suite and key identifier", typeName(st.Type), len(body))
		}
		kem := binary.BigEndian.Uint16(body)
		encSize, known := EncSize(kem)
		if known {
			if PostQuantum(kem) {
				pqAt = keepFirst(pqAt, i)
			} else {
				dhAt = keepFirst(dhAt, i)
			}
		}
		switch st.Type {
		case StanzaEphemeral: // rule 5
			if PostQuantum(kem) && !h.Private() {
				return malformed(i, "ephemeral stanza for suite 0x%04x, which has a shared form only in a private envelope", kem)
			}
			if n, _ := ephemeralSize(kem); known && len(body) != 2+n {
				return malformed(i, "ephemeral stanza for suite 0x%04x is %d bytes, want %d", kem, len(body), 2+n)
			}
			for _, e := range ephemerals {
				if e.kem == kem {
					return malformed(i, "second ephemeral stanza for suite 0x%04x (the first is stanza %d)", kem, e.index)
				}
			}
			if len(ephemerals) == MaxEphemerals {
				return malformed(i, "more than %d ephemeral stanzas", MaxEphemerals)
			}
			ephemerals = append(ephemerals, ephemeral{kem: kem, enc: body[2:], index: i})
			continue
		case StanzaHPKE: // rule 4
			if known && len(body) != HPKESize(encSize, anon) {
				return malformed(i, "HPKE stanza for suite 0x%04x is %d bytes, want %d", kem, len(body), HPKESize(encSize, anon))
			}
		case StanzaShared: // rule 6
			if PostQuantum(kem) && !h.Private() {
				return malformed(i, "shared stanza for suite 0x%04x, which has a shared form only in a private envelope", kem)
			}
			if n := sharedSize(kem, anon); len(body) != n {
				return malformed(i, "shared stanza is %d bytes, want %d", len(body), n)
			}
			found := false
			for j := range ephemerals {
				if ephemerals[j].kem == kem {
					ephemerals[j].used, found = true, true
				}
			}
			if !found {
				return malformed(i, "shared stanza for suite 0x%04x with no ephemeral stanza of its suite before it", kem)
			}
		case StanzaChannel: // rule 7
			if anon {
				return malformed(i, "channel stanza in an anonymous envelope")
			}
			if len(body) != ChannelSize {
				return malformed(i, "channel stanza is %d bytes, want %d", len(body), ChannelSize)
			}
			if PostQuantum(kem) {
				return malformed(i, "channel stanza for suite 0x%04x, which has no Diffie-Hellman", kem)
			}
		}
		// Rule 9: the number of recipients.
		if recipients++; recipients > MaxRecipients {
			return malformed(i, "more than %d recipient stanzas", MaxRecipients)
		}
		// Rule 10: one stanza per suite and identifier.
		if anon {
			continue
		}
		if key := (recipientKey{kem: kem, id: [KeyIDSize]byte(body[2 : 2+KeyIDSize])}); !seen.add(key) {
			return duplicate(i, key)
		}
	}
	for _, e := range ephemerals {
		if !e.used {
			return malformed(e.index, "ephemeral stanza for suite 0x%04x that no shared stanza uses", e.kem)
		}
	}
	if pqAt >= 0 && dhAt >= 0 { // rule 11
		return fmt.Errorf("%w: %w: stanza %d is post-quantum and stanza %d classical", errs.Malformed, errs.MixedSuites, pqAt, dhAt)
	}
	h.ephemerals = ephemerals
	return nil
}

// rsaIDTag names the key identifiers of ssh-rsa stanzas in the duplicate
// check: a suite is a KEM identifier, and no KEM has this one (rule 11a
// names an ssh-rsa stanza by its type, not a suite).
const rsaIDTag = 0xff05

// checkOther checks a stanza of type 0x06, 0x07 or 0x08 (rules 11a to
// 11d); seen is nil in an anonymous envelope.
func (h *Header) checkOther(st Stanza, seen *idSet) error {
	anon := h.RSAKeyless()
	switch st.Type {
	case StanzaRSA: // rules 11a, 11b
		id, _, err := ParseRSA(st.Body, anon)
		if err != nil {
			return fmt.Errorf("stanza %d: %w", st.Index, err)
		}
		if !anon {
			if key := (recipientKey{kem: rsaIDTag, id: [KeyIDSize]byte(id)}); !seen.add(key) {
				return fmt.Errorf("%w: %w: stanza %d repeats the ssh-rsa key identifier %x", errs.Malformed, errs.DuplicateRecipient, st.Index, id)
			}
		}
	case StanzaScrypt: // rule 11c
		if _, err := ParseScrypt(st.Body); err != nil {
			return fmt.Errorf("stanza %d: %w", st.Index, err)
		}
		if h.Count != 1 {
			return fmt.Errorf("%w: stanza %d: a scrypt (passphrase) stanza must be alone in its envelope, and this one has %d stanzas", errs.Malformed, st.Index, h.Count)
		}
	case StanzaAge: // rule 11d
		if _, _, _, err := ParseAge(st.Body); err != nil {
			return fmt.Errorf("stanza %d: %w", st.Index, err)
		}
		h.ageStanzas++
	}
	return nil
}

// AgeStanzas returns the number of StanzaAge stanzas, found by check.
func (h *Header) AgeStanzas() int { return h.ageStanzas }

// An idSet is a set of recipient keys: open addressing with linear
// probing over a table at most half full, indexed by a hash keyed with a
// per-process random seed (hash/maphash), so that an attacker who chooses
// identifiers cannot make them pile up in the table.
type idSet struct {
	slots []idSlot
}

type idSlot struct {
	key  recipientKey
	used bool
}

var idSeed = maphash.MakeSeed()

// idSets recycles the tables of checked headers: a busy reader checks one
// header per envelope.
var idSets sync.Pool

func newIDSet(n int) *idSet {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if s, ok := idSets.Get().(*idSet); ok && cap(s.slots) >= size {
		s.slots = s.slots[:size]
		clear(s.slots)
		return s
	}
	return &idSet{slots: make([]idSlot, size)}
}

// release returns the table to idSets.
func (s *idSet) release() { idSets.Put(s) }

// add adds k and reports whether it was new.
func (s *idSet) add(k recipientKey) bool {
	mask := uint64(len(s.slots) - 1)
	for i := k.hash() & mask; ; i = (i + 1) & mask {
		switch slot := &s.slots[i]; {
		case !slot.used:
			*slot = idSlot{k, true}
			return true
		case slot.key == k:
			return false
		}
	}
}

// hash hashes k's bytes. maphash.Comparable would box k under the purego
// build tag, one allocation per stanza; maphash.Bytes of an array on the
// stack allocates nothing in either build.
func (k recipientKey) hash() uint64 {
	var b [2 + KeyIDSize]byte
	binary.BigEndian.PutUint16(b[:], k.kem)
	copy(b[2:], k.id[:])
	return maphash.Bytes(idSeed, b[:])
}

func keepFirst(at, i int) int {
	if at < 0 {
		return i
	}
	return at
}

func duplicate(i int, k recipientKey) error {
	return fmt.Errorf("%w: %w: stanza %d repeats the key identifier %x of suite 0x%04x", errs.Malformed, errs.DuplicateRecipient, i, k.id, k.kem)
}

func typeName(t byte) string {
	switch t {
	case StanzaHPKE:
		return "HPKE"
	case StanzaEphemeral:
		return "ephemeral"
	case StanzaShared:
		return "shared"
	case StanzaChannel:
		return "channel"
	}
	return fmt.Sprintf("type 0x%02x", t)
}

// Ephemeral returns the shared ephemeral key of suite kem, from the
// header's StanzaEphemeral of that suite, or nil.
func (h *Header) Ephemeral(kem uint16) []byte {
	for _, e := range h.ephemerals {
		if e.kem == kem {
			return e.enc
		}
	}
	return nil
}
