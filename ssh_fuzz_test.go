package fanseal

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"io"
	"testing"
)

// FuzzParseSSHRecipient parses arbitrary text as an SSH public key line:
// it never panics, refuses with ErrInvalidKey (an *UnsupportedKeyError
// matches it), and a key it accepts formats to a line that parses to the
// same key.
func FuzzParseSSHRecipient(f *testing.F) {
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	_, edPub := sshKeyPair(f, ek, "")
	pk, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, ecPub := sshKeyPair(f, pk, "")
	_, rsaRecipient := rsaIdentity(f)
	for _, s := range []string{edPub, ecPub, rsaRecipient.String() + " bob", "sk-ssh-ed25519@openssh.com AAAA", "ssh-ed25519", `no-pty ` + edPub} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseSSHRecipient(line)
		if err != nil {
			if !errors.Is(err, ErrInvalidKey) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("undocumented error: %v", err)
			}
			return
		}
		again, err := ParseRecipient(r.String())
		if err != nil || !again.equal(r) || again.KeyID() != r.KeyID() {
			t.Fatalf("%q formats to %q, which parses to another key: %v", line, r.String(), err)
		}
	})
}

// FuzzParseSSHIdentity parses arbitrary bytes as an SSH private key file:
// it never panics, and refuses with ErrInvalidKey, ErrSSHPassphrase or an
// *UnsupportedKeyError.
func FuzzParseSSHIdentity(f *testing.F) {
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	edPriv, _ := sshKeyPair(f, ek, "")
	encPriv, _ := sshKeyPair(f, ek, "pw")
	pk, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecPriv, _ := sshKeyPair(f, pk, "")
	rsaIdentity(f)
	for _, b := range [][]byte{edPriv, encPriv, ecPriv, rsaKeys.priv} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := ParseSSHIdentity(b)
		if err != nil {
			if !errors.Is(err, ErrInvalidKey) && !errors.Is(err, ErrSSHPassphrase) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("undocumented error: %v", err)
			}
			return
		}
		env, err := SealBytes([]byte("m"), id.Recipient())
		if err != nil {
			t.Fatal(err)
		}
		if got, err := OpenBytes(env, id); err != nil || string(got) != "m" {
			t.Fatalf("a parsed SSH key does not open its own envelope: %v", err)
		}
	})
}

// FuzzOpenNewStanzas opens arbitrary bytes with ssh-ed25519, ssh-rsa,
// passphrase and age-stanza identities; seeds are envelopes of each, so
// mutations reach the framing rules 11a to 11d and each opener. A
// passphrase identity accepts work factors up to 2^4 only, so a mutated
// work factor costs the fuzzer nothing.
func FuzzOpenNewStanzas(f *testing.F) {
	sshIDs, sshRs := sshIdentities(f, 2)
	rsaID, rsaR := rsaIdentity(f)
	pass, _ := NewScryptRecipient([]byte("pw"), 2)
	w := testWrapper{bytes.Repeat([]byte{9}, 16)}
	ids := []*Identity{sshIDs[0], rsaID, NewScryptIdentityFunc(func() ([]byte, error) { return []byte("pw"), nil }, 4), NewWrappedIdentity(w)}
	for _, s := range []*Sealer{{}, {Anonymous: true}, {Strategy: Shared}} {
		for _, rs := range [][]*Recipient{{sshRs[0], sshRs[1]}, {rsaR, sshRs[1]}, {pass}, {NewWrappedRecipient(w, "w"), sshRs[1]}} {
			env, err := s.SealBytes([]byte("fuzz"), rs...)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(env)
		}
	}
	f.Fuzz(func(t *testing.T, env []byte) {
		r, err := Open(bytes.NewReader(env), ids...)
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err != nil && !isDocumented(err) {
			t.Fatalf("undocumented error: %v", err)
		}
	})
}
