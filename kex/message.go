package kex

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the wire message.
const (
	fieldSender  = 1
	fieldKeys    = 2
	fieldSession = 3
	entryKey     = 1
	entryValue   = 2
)

// A Message is one member's broadcast in a round: its index, the session,
// and one ephemeral public key for each other member. A received Message
// keeps its keys as raw bytes; none is parsed.
type Message struct {
	SenderID  uint32
	SessionID string
	raw       []byte      // the encoded message (keys point into it)
	keys      [][2]uint32 // keys[i] = offset and length of member i's key; keys[0] unused
}

// PublicKey returns the raw key the sender published for member, and
// whether there is one. The bytes are not validated.
func (m *Message) PublicKey(member uint32) ([]byte, bool) {
	if int64(member) >= int64(len(m.keys)) || m.keys[member][1] == 0 {
		return nil, false
	}
	off, n := m.keys[member][0], m.keys[member][1]
	return m.raw[off : off+n : off+n], true
}

// Marshal returns the protobuf encoding, keys in member order.
func (m *Message) Marshal() []byte { return slices.Clone(m.raw) }

// newMessage encodes a message from keys (keys[i] for member i, nil for
// the sender and index 0).
func newMessage(sender uint32, session string, keys [][]byte) *Message {
	size := 0
	for _, k := range keys {
		size += 12 + len(k)
	}
	b := make([]byte, 0, 16+len(session)+size)
	b = protowire.AppendTag(b, fieldSender, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(sender))
	m := &Message{SenderID: sender, SessionID: session, keys: make([][2]uint32, len(keys))}
	for i, k := range keys {
		if k == nil {
			continue
		}
		entry := protowire.AppendTag(nil, entryKey, protowire.VarintType)
		entry = protowire.AppendVarint(entry, uint64(i))
		entry = protowire.AppendTag(entry, entryValue, protowire.BytesType)
		entry = protowire.AppendVarint(entry, uint64(len(k)))
		b = protowire.AppendTag(b, fieldKeys, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(len(entry)+len(k)))
		b = append(b, entry...)
		m.keys[i] = [2]uint32{uint32(len(b)), uint32(len(k))}
		b = append(b, k...)
	}
	b = protowire.AppendTag(b, fieldSession, protowire.BytesType)
	m.raw = protowire.AppendString(b, session)
	return m
}

// Unmarshal decodes a message for a member of group g. It checks the
// framing, the session ID, that the sender is a member, and that there is
// exactly one key for every other member and none for anyone else; it
// keeps the keys as raw bytes without parsing them. The message bytes are
// retained, not copied: do not modify b afterwards.
func Unmarshal(b []byte, g Group) (*Message, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	if len(b) > MaxMessageSize(g.Size) {
		return nil, fmt.Errorf("%w: %d bytes for a group of %d (limit %d)", ErrTooLarge, len(b), g.Size, MaxMessageSize(g.Size))
	}
	m := &Message{raw: b, keys: make([][2]uint32, g.Size+1)}
	var haveSender, haveSession bool
	count := 0
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return nil, fmt.Errorf("%w: bad tag at byte %d", ErrMalformed, off)
		}
		off += n
		switch {
		case num == fieldSender && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b[off:])
			if n < 0 || haveSender {
				return nil, fmt.Errorf("%w: senderID at byte %d", ErrMalformed, off)
			}
			if v > uint64(^uint32(0)) || !g.member(uint32(v)) {
				return nil, fmt.Errorf("%w: sender %d in a group of %d", ErrSender, v, g.Size)
			}
			m.SenderID, haveSender = uint32(v), true
			off += n
		case num == fieldSession && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b[off:])
			if n < 0 || haveSession {
				return nil, fmt.Errorf("%w: sessionID at byte %d", ErrMalformed, off)
			}
			if string(v) != g.SessionID {
				return nil, fmt.Errorf("%w: %q, want %q", ErrSession, abbreviate(v), abbreviate([]byte(g.SessionID)))
			}
			haveSession = true
			off += n
		case num == fieldKeys && typ == protowire.BytesType:
			entry, n := protowire.ConsumeBytes(b[off:])
			if n < 0 {
				return nil, fmt.Errorf("%w: key entry at byte %d", ErrMalformed, off)
			}
			entryOff := off + n - len(entry)
			member, kOff, kLen, err := parseEntry(entry)
			if err != nil {
				return nil, fmt.Errorf("%w at byte %d", err, off)
			}
			if !g.member(member) {
				return nil, fmt.Errorf("%w: key for member %d in a group of %d", ErrUnknownMember, member, g.Size)
			}
			if m.keys[member][1] != 0 {
				return nil, fmt.Errorf("%w: member %d", ErrDuplicateKey, member)
			}
			if kLen == 0 {
				return nil, fmt.Errorf("%w: empty key for member %d", ErrMissingKey, member)
			}
			m.keys[member] = [2]uint32{uint32(entryOff + kOff), uint32(kLen)}
			count++
			off += n
		default:
			n := protowire.ConsumeFieldValue(num, typ, b[off:])
			if n < 0 || num == fieldSender || num == fieldKeys || num == fieldSession {
				return nil, fmt.Errorf("%w: field %d of wire type %d at byte %d", ErrMalformed, num, typ, off)
			}
			off += n // an unknown field, skipped as protobuf requires
		}
	}
	if !haveSender {
		return nil, fmt.Errorf("%w: no senderID", ErrSender)
	}
	if !haveSession && g.SessionID != "" {
		return nil, fmt.Errorf("%w: none, want %q", ErrSession, abbreviate([]byte(g.SessionID)))
	}
	m.SessionID = g.SessionID
	if m.keys[m.SenderID][1] != 0 {
		return nil, fmt.Errorf("%w: member %d sent a key for itself", ErrUnknownMember, m.SenderID)
	}
	if count != g.Size-1 {
		for i := uint32(1); int(i) <= g.Size; i++ {
			if i != m.SenderID && m.keys[i][1] == 0 {
				return nil, fmt.Errorf("%w: member %d's message has no key for member %d", ErrMissingKey, m.SenderID, i)
			}
		}
	}
	return m, nil
}

// parseEntry decodes a map entry {uint32 key = 1; bytes value = 2},
// returning the key and the value's offset and length within entry.
func parseEntry(entry []byte) (member uint32, off, n int, err error) {
	var haveKey, haveValue bool
	for p := 0; p < len(entry); {
		num, typ, t := protowire.ConsumeTag(entry[p:])
		if t < 0 {
			return 0, 0, 0, fmt.Errorf("%w: bad tag in key entry", ErrMalformed)
		}
		p += t
		switch {
		case num == entryKey && typ == protowire.VarintType && !haveKey:
			v, t := protowire.ConsumeVarint(entry[p:])
			if t < 0 || v > uint64(^uint32(0)) {
				return 0, 0, 0, fmt.Errorf("%w: bad member index", ErrMalformed)
			}
			member, haveKey = uint32(v), true
			p += t
		case num == entryValue && typ == protowire.BytesType && !haveValue:
			v, t := protowire.ConsumeBytes(entry[p:])
			if t < 0 {
				return 0, 0, 0, fmt.Errorf("%w: bad key bytes", ErrMalformed)
			}
			if len(v) > MaxKeySize {
				return 0, 0, 0, fmt.Errorf("%w: key of %d bytes (limit %d)", ErrTooLarge, len(v), MaxKeySize)
			}
			off, n, haveValue = p+t-len(v), len(v), true
			p += t
		default:
			return 0, 0, 0, fmt.Errorf("%w: unexpected field %d in key entry", ErrMalformed, num)
		}
	}
	return member, off, n, nil
}

func abbreviate(b []byte) string {
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}
