package fanseal

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzOpen opens arbitrary bytes as an envelope. Seeds are real envelopes
// for the fuzzer's identity, of every stanza type (HPKE, shared ephemeral,
// channel), so mutations reach the stanza, MAC and payload code. Open must never panic, and every failure must match one of
// the documented errors.
func FuzzOpen(f *testing.F) {
	id, err := NewIdentity(X25519, bytes.Repeat([]byte{0x42}, 32))
	if err != nil {
		f.Fatal(err)
	}
	other, _ := GenerateIdentity(X25519)
	// Channel stanzas from a fixed sender, which the fuzzed Opener's
	// keyring knows.
	sender, _ := NewIdentity(X25519, bytes.Repeat([]byte{0x17}, 32))
	senderRing, _ := NewKeyring(sender, 0)
	senderRing.AddPeer(id.Recipient())
	ring, _ := NewKeyring(id, 0)
	ring.AddPeer(sender.Recipient())
	opener := &Opener{Keyring: ring, PayloadWorkers: 2}
	for _, s := range []*Sealer{{}, {Anonymous: true}, {AEAD: ChaCha20Poly1305}, {Strategy: Shared}, {Strategy: Shared, Anonymous: true}, {Strategy: Channel, Keyring: senderRing}} {
		for _, pt := range [][]byte{nil, []byte("fuzz"), bytes.Repeat([]byte("x"), 70000)} {
			env, err := s.SealBytes(pt, id.Recipient(), other.Recipient())
			if err != nil {
				f.Fatal(err)
			}
			f.Add(env)
		}
	}
	f.Add([]byte("FANSEAL"))
	f.Fuzz(func(t *testing.T, env []byte) {
		r, err := opener.Open(bytes.NewReader(env), id)
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err != nil && !isDocumented(err) {
			t.Fatalf("undocumented error: %v", err)
		}
	})
}

func isDocumented(err error) bool {
	for _, e := range []error{ErrNotRecipient, ErrMalformed, ErrAuthentication, ErrTruncated, ErrUnsupported} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// FuzzParseKeys parses arbitrary text as keys and key files. Every text
// that parses is the one text of its key: writing the key back gives the
// same string. Seeds include texts with non-zero base32 padding bits,
// which must be refused.
func FuzzParseKeys(f *testing.F) {
	for _, s := range Suites {
		id, _ := GenerateIdentity(s)
		for _, text := range []string{id.String(), id.Recipient().String()} {
			f.Add(text)
			f.Add(withPaddingBit(text)) // a second spelling, refused
		}
	}
	id, _ := GenerateIdentity(P256)
	f.Add("# comment\n" + id.String() + "\n")
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := ParseRecipient(s); err == nil {
			if r.String() != s {
				t.Fatalf("recipient %q re-encodes as %q", s, r.String())
			}
		} else if !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("ParseRecipient: undocumented error %v", err)
		}
		if i, err := ParseIdentity(s); err == nil {
			if i.String() != s {
				t.Fatalf("identity %q re-encodes as %q", s, i.String())
			}
		} else if !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("ParseIdentity: undocumented error %v", err)
		}
		if _, err := ParseIdentities(strings.NewReader(s)); err != nil && !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("ParseIdentities: undocumented error %v", err)
		}
		if _, err := ParseRecipients(strings.NewReader(s)); err != nil && !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("ParseRecipients: undocumented error %v", err)
		}
	})
}
