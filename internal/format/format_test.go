package format

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
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
			// An accepted header parses wherever its reader looks: the
			// opener relies on it.
			kem, _, ok := PeekHPKE(st.Body, h.Anonymous() && st.Type != StanzaChannel)
			if _, known := EncSize(kem); !known || st.Type < StanzaHPKE || st.Type > StanzaChannel {
				continue
			}
			var err error
			switch st.Type {
			case StanzaHPKE:
				_, err = ParseHPKE(st.Body, h.Anonymous())
			case StanzaEphemeral:
				_, _, err = ParseEphemeral(st.Body)
			case StanzaShared:
				_, err = ParseShared(st.Body, h.Anonymous())
				if h.Ephemeral(kem) == nil {
					t.Fatalf("stanza %d: a shared stanza without its ephemeral key", st.Index)
				}
			case StanzaChannel:
				_, err = ParseChannel(st.Body)
			}
			if err != nil || !ok {
				t.Fatalf("stanza %d of an accepted header: %v", st.Index, err)
			}
		}
		if !bytes.Equal(re, h.Raw) || !bytes.Equal(b[:len(re)], re) {
			t.Fatal("header does not re-encode")
		}
	})
}

func TestSharedAndEphemeralStanzas(t *testing.T) {
	enc := bytes.Repeat([]byte{4}, 65)
	body := AppendEphemeral(nil, KEMP256, enc)
	kem, got, err := ParseEphemeral(body)
	if err != nil || kem != KEMP256 || !bytes.Equal(got, enc) {
		t.Fatalf("ParseEphemeral = %x, %v", kem, err)
	}
	for name, bad := range map[string][]byte{
		"short":    {0},
		"length":   body[:40],
		"pq":       AppendEphemeral(nil, KEMMLKEM768X25519, make([]byte, 1120)), // its shared key is 32 bytes
		"unknown":  AppendEphemeral(nil, 0x1234, enc),
		"too-long": append(bytes.Clone(body), 0),
	} {
		if _, _, err := ParseEphemeral(bad); err == nil {
			t.Errorf("%s: ParseEphemeral accepted it", name)
		}
	}
	for _, anon := range []bool{false, true} {
		s := &HPKEStanza{KEM: KEMX25519, CT: bytes.Repeat([]byte{7}, WrappedSize)}
		if !anon {
			s.KeyID = bytes.Repeat([]byte{9}, KeyIDSize)
		}
		b := AppendHPKE(nil, s)
		if len(b) != SharedSize(anon) {
			t.Fatalf("shared stanza of %d bytes, SharedSize %d", len(b), SharedSize(anon))
		}
		got, err := ParseShared(b, anon)
		if err != nil || !bytes.Equal(got.CT, s.CT) || !bytes.Equal(got.KeyID, s.KeyID) || got.Enc != nil {
			t.Fatalf("ParseShared: %v", err)
		}
		if _, err := ParseShared(b[1:], anon); !errors.Is(err, errs.Malformed) {
			t.Fatalf("short shared stanza: %v", err)
		}
	}
}

func TestChannelStanza(t *testing.T) {
	s := &ChannelStanza{KEM: KEMP256, KeyID: bytes.Repeat([]byte{1}, KeyIDSize), SenderID: bytes.Repeat([]byte{2}, KeyIDSize),
		Epoch: 7, Salt: bytes.Repeat([]byte{3}, SaltSize), Counter: 1 << 40}
	b := append(AppendChannelHeader(nil, s), bytes.Repeat([]byte{5}, WrappedSize)...)
	if len(b) != ChannelSize {
		t.Fatalf("channel stanza of %d bytes", len(b))
	}
	got, err := ParseChannel(b)
	if err != nil || got.KEM != s.KEM || got.Epoch != 7 || got.Counter != 1<<40 || !bytes.Equal(got.SenderID, s.SenderID) ||
		!bytes.Equal(got.KeyID, s.KeyID) || !bytes.Equal(got.Salt, s.Salt) || len(got.CT) != WrappedSize {
		t.Fatalf("ParseChannel = %+v, %v", got, err)
	}
	kem, id, ok := PeekHPKE(b, false)
	if !ok || kem != KEMP256 || !bytes.Equal(id, s.KeyID) {
		t.Fatal("PeekHPKE does not find a channel stanza's recipient")
	}
	if _, err := ParseChannel(b[:len(b)-1]); !errors.Is(err, errs.Malformed) {
		t.Fatalf("short channel stanza: %v", err)
	}
}

func TestPreambleErrors(t *testing.T) {
	good := (&Preamble{AEAD: AEADChaCha20Poly1305, Count: 3, Flags: FlagAnonymous}).Append(nil)
	p, err := ParsePreamble(good)
	if err != nil || p.Count != 3 || !p.Anonymous() || p.AEAD != AEADChaCha20Poly1305 {
		t.Fatalf("ParsePreamble = %+v, %v", p, err)
	}
	edit := func(i int, v byte) []byte { b := bytes.Clone(good); b[i] = v; return b }
	for name, tc := range map[string]struct {
		b    []byte
		want error
	}{
		"short":   {good[:10], errs.Truncated},
		"magic":   {edit(0, 'f'), errs.Malformed},
		"version": {edit(7, 9), errs.Unsupported},
		"flags":   {edit(8, 2), errs.Unsupported},
		"both":    {edit(8, 5), errs.Malformed},
		// Rule 1: an unsupported AEAD before both flags (malformed).
		"both-aead": {func() []byte { b := edit(8, 5); b[10] = 9; return b }(), errs.Unsupported},
		"aead":      {edit(10, 1), errs.Unsupported},
		"count":     {edit(28, 0), errs.Malformed},
	} {
		if _, err := ParsePreamble(tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	for _, kem := range []uint16{KEMP256, KEMSecp256k1, KEMX25519, KEMMLKEM768X25519} {
		if n, ok := EncSize(kem); !ok || n == 0 {
			t.Errorf("EncSize(%x)", kem)
		}
	}
	if _, ok := EncSize(1); ok {
		t.Error("EncSize of an unknown KEM")
	}
	if _, _, err := ParseHeader(good[:5]); !errors.Is(err, errs.Truncated) {
		t.Errorf("ParseHeader of 5 bytes: %v", err)
	}
	if _, err := ReadHeader(bufio.NewReader(bytes.NewReader(good))); !errors.Is(err, errs.Truncated) {
		t.Errorf("ReadHeader without stanzas: %v", err)
	}
}

// TestPeekHPKEAnonymous: in an anonymous envelope a stanza starts with its
// suite alone, so PeekHPKE needs two bytes, not room for a key identifier
// the stanza does not carry.
func TestPeekHPKEAnonymous(t *testing.T) {
	for _, b := range [][]byte{{0x77, 0x77}, {0x77, 0x77, 1, 2, 3, 4, 5, 6, 7}} {
		kem, id, ok := PeekHPKE(b, true)
		if !ok || kem != 0x7777 || id != nil {
			t.Errorf("anonymous body of %d bytes: suite 0x%04x, id %x, ok %v; want 0x7777, none, true", len(b), kem, id, ok)
		}
	}
	if _, _, ok := PeekHPKE([]byte{0x77}, true); ok {
		t.Error("PeekHPKE accepted an anonymous body without room for its suite")
	}
}

// TestShortInputMagic: input shorter than the preamble is malformed when
// its bytes are not a prefix of the magic (it is no envelope, however long
// it would grow), and truncated when they are (docs/FORMAT.md, rules 1 and
// 3): the magic is checked on whatever bytes there are, the rest of the
// preamble only once it is whole.
func TestShortInputMagic(t *testing.T) {
	good := (&Preamble{AEAD: AEADAES256GCM, Count: 1}).Append(nil)
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"", errs.Truncated},
		{"F", errs.Truncated},
		{"FANS", errs.Truncated},
		{"FANSEAL", errs.Truncated},
		{string(good[:20]), errs.Truncated},
		{string(good[:28]), errs.Truncated},
		{"XXXX", errs.Malformed},
		{"FANSEAM", errs.Malformed},
		{"fanseal", errs.Malformed},
		{"FANx", errs.Malformed},
		{"\n", errs.Malformed},
		{"FANSEALFANSEAL", errs.Truncated}, // the magic, then a version 'F': found only with the whole preamble
	} {
		if _, err := ParsePreamble([]byte(tc.in)); !errors.Is(err, tc.want) {
			t.Errorf("ParsePreamble(%q): %v, want %v", tc.in, err, tc.want)
		}
		if _, _, err := ParseHeader([]byte(tc.in)); !errors.Is(err, tc.want) {
			t.Errorf("ParseHeader(%q): %v, want %v", tc.in, err, tc.want)
		}
		if _, err := ReadHeader(bufio.NewReader(strings.NewReader(tc.in))); !errors.Is(err, tc.want) {
			t.Errorf("ReadHeader(%q): %v, want %v", tc.in, err, tc.want)
		}
	}
}

// FuzzParseAge decodes arbitrary bytes as an age-stanza stanza body: it
// never panics, refuses with errs.Malformed, and what it accepts encodes
// back to the same bytes.
func FuzzParseAge(f *testing.F) {
	enc, _ := AppendAge(nil, &AgeStanza{Words: []string{"X25519", "abc"}, Body: []byte("body")})
	f.Add(append(enc, make([]byte, WrappedSize)...))
	f.Add(make([]byte, MinAgeStanzaSize))
	f.Fuzz(func(t *testing.T, body []byte) {
		a, encoded, ct, err := ParseAge(body)
		if err != nil {
			if !errors.Is(err, errs.Malformed) {
				t.Fatalf("undocumented error: %v", err)
			}
			return
		}
		again, err := AppendAge(nil, a)
		if err != nil || !bytes.Equal(again, encoded) || len(ct) != WrappedSize {
			t.Fatalf("%x decodes to %+v, which encodes to %x (%v)", body, a, again, err)
		}
	})
}

// FuzzParseRSAScrypt decodes arbitrary bytes as ssh-rsa and scrypt stanza
// bodies: never a panic, only errs.Malformed.
func FuzzParseRSAScrypt(f *testing.F) {
	f.Add(make([]byte, KeyIDSize+MinRSASize))
	f.Add(append(make([]byte, ScryptSaltSize), append([]byte{18}, make([]byte, WrappedSize)...)...))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, anon := range []bool{false, true} {
			if _, _, err := ParseRSA(body, anon); err != nil && !errors.Is(err, errs.Malformed) {
				t.Fatal(err)
			}
		}
		if s, err := ParseScrypt(body); err != nil && !errors.Is(err, errs.Malformed) || err == nil && (s.LogN < 1 || s.LogN > MaxScryptLogN) {
			t.Fatal(err)
		}
	})
}
