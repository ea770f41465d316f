package format

import (
	"bufio"
	"bytes"
	"errors"
	"testing"

	"github.com/fanseal/fanseal/internal/errs"
)

func testHeader(anonymous bool) []byte {
	p := Preamble{AEAD: AEADAES256GCM, Count: 2}
	if anonymous {
		p.Flags = FlagAnonymous
	}
	b := p.Append(nil)
	for i, kem := range []uint16{KEMX25519, KEMP256} {
		enc, _ := EncSize(kem)
		s := &HPKEStanza{KEM: kem, Enc: bytes.Repeat([]byte{byte(i)}, enc), CT: make([]byte, WrappedSize)}
		if !anonymous {
			s.KeyID = bytes.Repeat([]byte{0xa0 + byte(i)}, KeyIDSize)
		}
		b = AppendStanzaHeader(b, StanzaHPKE, HPKESize(enc, anonymous))
		b = AppendHPKE(b, s)
	}
	return append(b, make([]byte, MACSize)...)
}

func TestHeaderRoundTrip(t *testing.T) {
	for _, anon := range []bool{false, true} {
		raw := testHeader(anon)
		h, err := ReadHeader(bufio.NewReader(bytes.NewReader(append(raw, "payload"...))))
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Raw) != len(raw)-MACSize || h.Count != 2 || h.Anonymous() != anon {
			t.Fatalf("header: raw %d count %d anon %v", len(h.Raw), h.Count, h.Anonymous())
		}
		n := 0
		for st := range h.Stanzas() {
			kem, id, ok := PeekHPKE(st.Body, anon)
			s, err := ParseHPKE(st.Body, anon)
			if !ok || err != nil || s.KEM != kem || !bytes.Equal(s.KeyID, id) {
				t.Fatalf("stanza %d: %v %v", st.Index, ok, err)
			}
			if anon != (id == nil) || len(s.CT) != WrappedSize || s.Enc[0] != byte(st.Index) {
				t.Fatalf("stanza %d decoded wrong", st.Index)
			}
			n++
		}
		if n != 2 {
			t.Fatalf("walked %d stanzas", n)
		}
	}
}

func TestHeaderLimits(t *testing.T) {
	p := Preamble{AEAD: AEADAES256GCM, Count: MaxRecipients}
	b := p.Append(nil)
	big := make([]byte, 0xffff)
	for range 300 {
		b = AppendStanzaHeader(b, 0x7f, len(big))
		b = append(b, big...)
	}
	_, err := ReadHeader(bufio.NewReader(bytes.NewReader(b)))
	if !errors.Is(err, errs.Malformed) {
		t.Fatalf("oversized header: %v, want Malformed", err)
	}
}

func TestParseHPKEErrors(t *testing.T) {
	if _, err := ParseHPKE([]byte{0}, false); !errors.Is(err, errs.Malformed) {
		t.Errorf("1-byte body: %v", err)
	}
	if _, err := ParseHPKE([]byte{0x12, 0x34, 1, 2, 3}, false); !errors.Is(err, errs.Unsupported) {
		t.Errorf("unknown KEM: %v", err)
	}
	if _, err := ParseHPKE([]byte{0x00, 0x20, 1, 2, 3}, false); !errors.Is(err, errs.Malformed) {
		t.Errorf("short X25519 body: %v", err)
	}
	if _, _, ok := PeekHPKE([]byte{0, 0x20, 1}, false); ok {
		t.Error("PeekHPKE accepted a body without room for a key id")
	}
}

// FuzzReadHeader reads arbitrary bytes as a header and walks and parses
// every stanza. It must never panic, and a header it accepts must be
// re-encoded identically by walking its stanzas.
func FuzzReadHeader(f *testing.F) {
	f.Add(testHeader(false))
	f.Add(testHeader(true))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ReadHeader(bufio.NewReader(bytes.NewReader(b)))
		h2, rest, err2 := ParseHeader(b)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("ReadHeader error %v, ParseHeader error %v", err, err2)
		}
		if err != nil {
			if !errors.Is(err, errs.Malformed) && !errors.Is(err, errs.Truncated) && !errors.Is(err, errs.Unsupported) {
				t.Fatalf("undocumented error %v", err)
			}
			return
		}
		if !bytes.Equal(h.Raw, h2.Raw) || h.MAC != h2.MAC || h.Preamble != h2.Preamble || len(rest) != len(b)-len(h.Raw)-MACSize {
			t.Fatal("ReadHeader and ParseHeader disagree")
		}
		re := h.Preamble.Append(nil)
		for st := range h.Stanzas() {
			re = AppendStanzaHeader(re, st.Type, len(st.Body))
			re = append(re, st.Body...)
			PeekHPKE(st.Body, h.Anonymous())
			if s, err := ParseHPKE(st.Body, h.Anonymous()); err == nil {
				if !bytes.Equal(AppendHPKE(nil, s), st.Body) {
					t.Fatal("HPKE stanza does not re-encode")
				}
			}
		}
		if !bytes.Equal(re, h.Raw) || !bytes.Equal(b[:len(re)], re) {
			t.Fatal("header does not re-encode")
		}
	})
}
