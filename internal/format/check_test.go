package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/fanseal/fanseal/internal/errs"
)

// A stanza for header: its type and body.
type stanza struct {
	typ  byte
	body []byte
}

// header encodes a preamble, stanzas and a zero MAC.
func header(anon bool, stanzas ...stanza) []byte {
	p := Preamble{AEAD: AEADAES256GCM, Count: len(stanzas)}
	if anon {
		p.Flags = FlagAnonymous
	}
	b := p.Append(nil)
	for _, s := range stanzas {
		b = append(AppendStanzaHeader(b, s.typ, len(s.body)), s.body...)
	}
	return append(b, make([]byte, MACSize)...)
}

// suiteBody is kem || id (unless anonymous, given as nil) || n more bytes.
func suiteBody(kem uint16, id []byte, n int) []byte {
	b := binary.BigEndian.AppendUint16(nil, kem)
	return append(append(b, id...), make([]byte, n)...)
}

func TestCheck(t *testing.T) {
	id := func(b byte) []byte { return bytes.Repeat([]byte{b}, KeyIDSize) }
	x := stanza{StanzaHPKE, suiteBody(KEMX25519, id(1), 32+WrappedSize)}
	xAnon := stanza{StanzaHPKE, suiteBody(KEMX25519, nil, 32+WrappedSize)}
	eph := stanza{StanzaEphemeral, suiteBody(KEMX25519, nil, 32)}
	shared := stanza{StanzaShared, suiteBody(KEMX25519, id(2), WrappedSize)}
	pq := stanza{StanzaHPKE, suiteBody(KEMMLKEM768X25519, id(3), 1120+WrappedSize)}
	channel := stanza{StanzaChannel, suiteBody(KEMX25519, id(4), ChannelSize-2-KeyIDSize)}
	unknown := stanza{StanzaHPKE, suiteBody(0x7777, id(5), 3)}
	for _, tc := range []struct {
		name     string
		anon     bool
		stanzas  []stanza
		want     error // nil: accepted
		also     error
		ephemOfX bool
	}{
		{name: "plain", stanzas: []stanza{x, channel, unknown, {0x42, nil}}},
		{name: "shared", stanzas: []stanza{x, eph, shared}, ephemOfX: true},
		{name: "anonymous", anon: true, stanzas: []stanza{xAnon, xAnon}},
		{name: "wrong length", stanzas: []stanza{x, {StanzaHPKE, suiteBody(KEMX25519, id(9), 10)}}, want: errs.Malformed},
		{name: "short", stanzas: []stanza{{StanzaShared, []byte{0, 0x20, 1}}}, want: errs.Malformed},
		{name: "orphan shared", stanzas: []stanza{x, shared}, want: errs.Malformed},
		{name: "shared first", stanzas: []stanza{x, shared, eph}, want: errs.Malformed},
		{name: "two ephemerals", stanzas: []stanza{eph, shared, eph}, want: errs.Malformed},
		{name: "unused ephemeral", stanzas: []stanza{x, eph}, want: errs.Malformed},
		{name: "ephemeral length", stanzas: []stanza{{StanzaEphemeral, suiteBody(KEMX25519, nil, 31)}, shared}, want: errs.Malformed},
		{name: "pq ephemeral", stanzas: []stanza{pq, {StanzaEphemeral, suiteBody(KEMMLKEM768X25519, nil, 1120)}}, want: errs.Malformed},
		{name: "pq shared", stanzas: []stanza{pq, {StanzaShared, suiteBody(KEMMLKEM768X25519, id(7), WrappedSize)}}, want: errs.Malformed},
		{name: "pq channel", stanzas: []stanza{pq, {StanzaChannel, suiteBody(KEMMLKEM768X25519, id(7), ChannelSize-2-KeyIDSize)}}, want: errs.Malformed},
		{name: "channel length", stanzas: []stanza{{StanzaChannel, suiteBody(KEMX25519, id(4), 10)}}, want: errs.Malformed},
		{name: "anonymous channel", anon: true, stanzas: []stanza{xAnon, channel}, want: errs.Malformed},
		{name: "duplicate", stanzas: []stanza{x, unknown, x}, want: errs.Malformed, also: errs.DuplicateRecipient},
		{name: "duplicate across types", stanzas: []stanza{{StanzaChannel, suiteBody(KEMX25519, id(1), ChannelSize-2-KeyIDSize)}, x}, want: errs.Malformed, also: errs.DuplicateRecipient},
		{name: "mixed", stanzas: []stanza{x, pq}, want: errs.Malformed, also: errs.MixedSuites},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseHeader(header(tc.anon, tc.stanzas...))
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != nil && (!errors.Is(err, tc.want) || tc.also != nil && !errors.Is(err, tc.also)):
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestCheckDuplicatesAtScale finds a duplicate identifier among many
// stanzas, wherever its twin stands, and accepts distinct ones.
func TestCheckDuplicatesAtScale(t *testing.T) {
	stanzas := make([]stanza, 200)
	for i := range stanzas {
		var id [KeyIDSize]byte
		binary.BigEndian.PutUint64(id[:], uint64(i))
		stanzas[i] = stanza{StanzaHPKE, suiteBody(KEMX25519, id[:], 32+WrappedSize)}
	}
	h, _, err := ParseHeader(header(false, stanzas...))
	if err != nil {
		t.Fatal(err)
	}
	if h.Ephemeral(KEMX25519) != nil {
		t.Fatal("an ephemeral key in a header without one")
	}
	for _, dup := range []int{1, 15, 16, 150} {
		bad := append([]stanza(nil), stanzas...)
		bad[199] = bad[dup]
		if _, _, err := ParseHeader(header(false, bad...)); !errors.Is(err, errs.DuplicateRecipient) {
			t.Errorf("duplicate of stanza %d: %v", dup, err)
		}
	}
	many := make([]stanza, MaxRecipients+1)
	for i := range many {
		many[i] = stanza{0x09, nil}
	}
	many[0] = stanza{StanzaHPKE, suiteBody(0x7777, nil, 0)}
	if _, _, err := ParseHeader(header(true, many...)); err != nil {
		t.Fatalf("unknown stanza types do not count as recipients: %v", err)
	}
	for i := range many {
		many[i] = stanza{StanzaHPKE, suiteBody(0x7777, nil, 0)}
	}
	if _, _, err := ParseHeader(header(true, many...)); !errors.Is(err, errs.Malformed) {
		t.Fatalf("%d recipient stanzas: %v", len(many), err)
	}
}

// BenchmarkParseHeader reads and checks headers of n recipient stanzas
// with distinct identifiers: the reader's cost before any key agreement.
func BenchmarkParseHeader(b *testing.B) {
	for _, n := range []int{2, 100, 1000} {
		stanzas := make([]stanza, n)
		for i := range stanzas {
			var id [KeyIDSize]byte
			binary.BigEndian.PutUint64(id[:], uint64(i)*0x9e3779b97f4a7c15)
			stanzas[i] = stanza{StanzaHPKE, suiteBody(KEMX25519, id[:], 32+WrappedSize)}
		}
		h := header(false, stanzas...)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ParseHeader(h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
