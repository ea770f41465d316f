package fanseal

import (
	"bytes"
	"errors"
	"io"
	"os"
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
	pq, err := NewIdentity(MLKEM768X25519, bytes.Repeat([]byte{0x5a}, 32))
	if err != nil {
		f.Fatal(err)
	}
	pqOther, _ := GenerateIdentity(MLKEM768X25519)
	for _, s := range []*Sealer{{}, {Identified: true}} {
		env, err := s.SealBytes([]byte("pq"), pq.Recipient(), pqOther.Recipient())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(env)
	}
	for _, s := range []*Sealer{{}, {Identified: true}, {Anonymous: true}, {AEAD: ChaCha20Poly1305}, {Strategy: Shared}, {Strategy: Shared, Anonymous: true}, {Strategy: Channel, Keyring: senderRing}} {
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
		r, err := opener.Open(bytes.NewReader(env), id, pq)
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err != nil && !isDocumented(err) {
			t.Fatalf("undocumented error: %v", err)
		}
		for _, who := range []*Identity{id, pq} {
			if k, err := StanzaFor(env, who); err != nil && !isDocumented(err) || k < -1 {
				t.Fatalf("StanzaFor: %d, undocumented error: %v", k, err)
			}
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
	f.Fuzz(checkKeyText)
}

// FuzzParseAgeKeys is FuzzParseKeys seeded with age's forms of keys, as
// age-keygen writes them, and with the forms fanseal refuses.
func FuzzParseAgeKeys(f *testing.F) {
	for _, name := range []string{"x25519.key", "mlkem768x25519.key"} {
		b, err := os.ReadFile("testdata/age/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f.Add(strings.TrimPrefix(line, "# public key: "))
		}
	}
	for _, s := range []Suite{X25519, MLKEM768X25519} {
		id, _ := GenerateIdentity(s)
		sec, _ := id.AgeString()
		pub, _ := id.Recipient().AgeString()
		f.Add(sec)
		f.Add(pub)
	}
	f.Add(specAge("age1yubikey", []byte("plugin data")))
	f.Add(specAge("AGE-PLUGIN-YUBIKEY-", []byte("plugin data")))
	f.Add("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmLgBVdX3GQCc1o3sA8oOE+Ebs1v8c7OEh7eVW1Mb3U")
	f.Add("age-encryption.org/v1\n-> scrypt c2FsdA 18\n")
	f.Fuzz(checkKeyText)
}

// checkKeyText parses s every way a key is parsed. Errors must match
// ErrInvalidKey. A recipient that parses writes back as s in the form s
// is in. So does an identity, but for age's X25519 identities: age-keygen
// writes unclamped scalars, and fanseal writes the clamped one, which is
// the same key and writes back as itself.
func checkKeyText(t *testing.T, s string) {
	age := strings.HasPrefix(strings.ToUpper(s), "AGE")
	r, err := ParseRecipient(s)
	checkCachedParse(t, s, r, err)
	if err == nil {
		back := r.String()
		if age {
			back, _ = r.AgeString()
		}
		if back != s {
			t.Fatalf("recipient %q re-encodes as %q", s, back)
		}
	} else if !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("ParseRecipient: undocumented error %v", err)
	}
	if i, err := ParseIdentity(s); err == nil {
		back := i.String()
		if age {
			back, _ = i.AgeString()
		}
		if back != s && (!age || i.Suite() != X25519) {
			t.Fatalf("identity %q re-encodes as %q", s, back)
		}
		if again, err := ParseIdentity(back); err != nil || again.Recipient().String() != i.Recipient().String() {
			t.Fatalf("identity %q re-encodes as %q, which parses as %v, %v", s, back, again, err)
		} else if b2, _ := again.AgeString(); age && b2 != back {
			t.Fatalf("identity %q: age text %q is not a fixed point", s, back)
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
}

// fuzzCache is shared by the inputs of a fuzzing process, so that they
// meet each other's entries and evictions.
var fuzzCache = NewSessionCache(0, 0)

// checkCachedParse checks that parsing s through a SessionCache, twice,
// and the recipient's bytes through it, agree with ParseRecipient's r and
// err.
func checkCachedParse(t *testing.T, s string, r *Recipient, err error) {
	for range 2 {
		got, gerr := fuzzCache.ParseRecipient(s)
		if (gerr == nil) != (err == nil) || err != nil && gerr.Error() != err.Error() {
			t.Fatalf("SessionCache.ParseRecipient(%q): %v, ParseRecipient: %v", s, gerr, err)
		}
		if err == nil && (got.String() != r.String() || !bytes.Equal(got.raw, r.raw) || got.fp != r.fp) {
			t.Fatalf("SessionCache.ParseRecipient(%q) = %v, ParseRecipient: %v", s, got, r)
		}
	}
	if err != nil || r.ssh != nil || r.wrap != nil {
		return
	}
	if got, err := fuzzCache.NewRecipient(r.suite, r.raw); err != nil || got.String() != r.String() {
		t.Fatalf("SessionCache.NewRecipient of %q's key: %v, %v", s, got, err)
	}
}
