package fanseal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"fmt"
	"testing"
)

// xorWrapper is a stand-in for an age recipient in the library's tests
// (the command line's tests use age's own recipients and a real
// plugin): it seals the secret with AES-GCM under a key it shares with
// its xorUnwrapper, in an age stanza of type "test".
type testWrapper struct{ key []byte }

func (w testWrapper) aead() cipher.AEAD {
	b, _ := aes.NewCipher(w.key)
	a, _ := cipher.NewGCM(b)
	return a
}

func (w testWrapper) WrapSecret(secret []byte) ([]*AgeStanza, error) {
	body := w.aead().Seal(nil, make([]byte, 12), secret, nil)
	return []*AgeStanza{{Type: "test", Args: []string{fmt.Sprintf("%x", w.key[:4])}, Body: body}}, nil
}

func (w testWrapper) UnwrapSecret(sts []*AgeStanza) ([]byte, error) {
	for _, st := range sts {
		if st.Type != "test" || len(st.Args) != 1 || st.Args[0] != fmt.Sprintf("%x", w.key[:4]) {
			continue
		}
		return w.aead().Open(nil, make([]byte, 12), st.Body, nil)
	}
	return nil, ErrNotRecipient
}

func TestAgeStanzaRoundTrip(t *testing.T) {
	a, b := testWrapper{bytes.Repeat([]byte{1}, 16)}, testWrapper{bytes.Repeat([]byte{2}, 16)}
	_, xs := identities(t, X25519, 1)
	env := mustSeal(t, new(Sealer), []byte("age"), NewWrappedRecipient(a, "a"), xs[0], NewWrappedRecipient(b, "b"))
	for _, w := range []testWrapper{a, b} {
		got, err := OpenBytes(env, NewWrappedIdentity(w))
		if err != nil || string(got) != "age" {
			t.Fatalf("%q, %v", got, err)
		}
	}
	c := testWrapper{bytes.Repeat([]byte{3}, 16)}
	if _, err := OpenBytes(env, NewWrappedIdentity(c)); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("another age identity: %v", err)
	}
	// Tampering with the carried age stanza changes its key: the file key
	// does not open.
	i := bytes.Index(env, []byte("test"))
	bad := append([]byte{}, env...)
	bad[i+len("test")+1] ^= 1 // the argument: no longer a's
	if _, err := OpenBytes(bad, NewWrappedIdentity(a)); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("argument changed: %v", err)
	}
}

// Every pair of an age stanza and an age identity is a trial, anonymous
// flag or not.
func TestAgeStanzaTrials(t *testing.T) {
	var rs []*Recipient
	for i := range 3 {
		rs = append(rs, NewWrappedRecipient(testWrapper{bytes.Repeat([]byte{byte(i + 1)}, 16)}, "t"))
	}
	env := mustSeal(t, new(Sealer), []byte("m"), rs...)
	o := &Opener{MaxAnonymousTrials: 5}
	ids := []*Identity{NewWrappedIdentity(testWrapper{bytes.Repeat([]byte{1}, 16)}), NewWrappedIdentity(testWrapper{bytes.Repeat([]byte{2}, 16)})}
	if _, err := o.OpenBytes(env, ids...); !errors.Is(err, ErrAnonymousLimit) {
		t.Fatalf("6 trials under a limit of 5: %v", err)
	}
	if _, err := o.OpenBytes(env, ids[0]); err != nil {
		t.Fatalf("3 trials: %v", err)
	}
}
