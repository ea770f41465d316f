package fanseal_test

import (
	"bytes"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/armor"
	"github.com/fanseal/fanseal/internal/testkit"
	"golang.org/x/crypto/chacha20poly1305"
)

// sentinels maps each failure class of the conformance kit to its error.
var sentinels = map[string]error{
	testkit.Malformed:      fanseal.ErrMalformed,
	testkit.Unsupported:    fanseal.ErrUnsupported,
	testkit.NotRecipient:   fanseal.ErrNotRecipient,
	testkit.Authentication: fanseal.ErrAuthentication,
	testkit.Truncated:      fanseal.ErrTruncated,
	testkit.InvalidKey:     fanseal.ErrInvalidKey,
}

// TestVectors runs every conformance vector of testdata/vectors (see
// docs/FORMAT.md, "Conformance vectors") through OpenBytes and through the
// streaming Open.
func TestVectors(t *testing.T) {
	vs, err := testkit.Load("testdata/vectors")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			got, err := runVector(v, openBytes)
			if err != nil {
				t.Errorf("vector %s: OpenBytes: %v", v, err)
			} else if v.Expect != testkit.Success && got != nil {
				t.Errorf("vector %s: OpenBytes returned %d bytes with its error", v, len(got))
			}
			if _, err := runVector(v, openStream); err != nil {
				t.Errorf("vector %s: Open: %v", v, err)
			}
		})
	}
}

// TestVectorsOpenAll: every conformance vector's envelope, twice in a
// batch beside good envelopes for its identities, gets from OpenAll
// exactly the verdict OpenBytes gives it, one envelope after another with
// an Opener of the same state.
func TestVectorsOpenAll(t *testing.T) {
	vs, err := testkit.Load("testdata/vectors")
	if err != nil {
		t.Fatal(err)
	}
	opened := 0
	for _, v := range vs {
		o, env, ids, err := setupVector(v)
		if err != nil {
			continue // a vector of key texts: no envelope to open
		}
		batch := [][]byte{env, env}
		var rs []*fanseal.Recipient
		for _, id := range ids {
			rs = append(rs, id.Recipient())
		}
		if good, err := fanseal.SealBytes([]byte("good"), rs...); err == nil {
			batch = [][]byte{good, env, good, env}
		}
		want, wantErr := make([][]byte, len(batch)), make([]error, len(batch))
		for i, e := range batch {
			want[i], wantErr[i] = o.OpenBytes(e, ids...)
		}
		o, _, _, _ = setupVector(v)
		got, gotErr := o.OpenAll(batch, ids...)
		for i := range batch {
			if fmt.Sprint(gotErr[i]) != fmt.Sprint(wantErr[i]) || !bytes.Equal(got[i], want[i]) || (got[i] == nil) != (want[i] == nil) {
				t.Errorf("vector %s, envelope %d of %d: OpenAll gave %q (%d bytes), OpenBytes %q (%d bytes)", v, i, len(batch), gotErr[i], len(got[i]), wantErr[i], len(want[i]))
			}
		}
		opened++
	}
	t.Logf("%d of %d vectors opened in batches", opened, len(vs))
	if opened < len(vs)/2 {
		t.Fatalf("only %d of %d vectors have an envelope", opened, len(vs))
	}
}

type opener func(o *fanseal.Opener, envelope []byte, ids []*fanseal.Identity) ([]byte, error)

func openBytes(o *fanseal.Opener, envelope []byte, ids []*fanseal.Identity) ([]byte, error) {
	return o.OpenBytes(envelope, ids...)
}

func openStream(o *fanseal.Opener, envelope []byte, ids []*fanseal.Identity) ([]byte, error) {
	r, err := o.Open(bytes.NewReader(envelope), ids...)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// runVector opens one vector and returns what it got, and what differs
// from the expectation.
func runVector(v *testkit.Vector, open opener) ([]byte, error) {
	got, err := openVector(v, open)
	if v.Expect == testkit.Success {
		if err != nil {
			return got, fmt.Errorf("got error %q, want success", err)
		}
		if sum := sha256.Sum256(got); !bytes.Equal(sum[:], v.Payload) {
			return got, fmt.Errorf("payload SHA-256 %x, want %x", sum, v.Payload)
		}
		return got, nil
	}
	if err == nil {
		return got, fmt.Errorf("opened (%d bytes), want %s", len(got), v.Expect)
	}
	if !errors.Is(err, sentinels[v.Expect]) {
		return got, fmt.Errorf("got error %q, want %s", err, v.Expect)
	}
	return got, nil
}

// openVector parses the vector's keys and opens its envelope.
func openVector(v *testkit.Vector, open opener) ([]byte, error) {
	o, envelope, ids, err := setupVector(v)
	if err != nil {
		return nil, err
	}
	return open(o, envelope, ids)
}

// setupVector parses the vector's keys and returns an Opener with its
// Keyring, its envelope and its identities.
func setupVector(v *testkit.Vector) (*fanseal.Opener, []byte, []*fanseal.Identity, error) {
	for _, text := range v.Recipients {
		r, err := fanseal.ParseRecipient(text)
		if err != nil {
			return nil, nil, nil, err
		}
		back := r.String()
		if strings.HasPrefix(text, "age1") {
			if back, err = r.AgeString(); err != nil {
				return nil, nil, nil, err
			}
		}
		if back != text {
			return nil, nil, nil, fmt.Errorf("recipient %q reads back as %q", text, back)
		}
	}
	var ids []*fanseal.Identity
	for _, text := range v.Identities {
		id, err := parseIdentity(text)
		if err != nil {
			return nil, nil, nil, err
		}
		ids = append(ids, id)
	}
	for _, file := range v.SSHIdentities {
		// An identity file that is an OpenSSH private key is that one key.
		read, err := fanseal.ParseIdentities(bytes.NewReader(file))
		if err != nil {
			return nil, nil, nil, err
		}
		id, err := fanseal.ParseSSHIdentity(file)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(read) != 1 || read[0].Recipient().String() != id.Recipient().String() {
			return nil, nil, nil, fmt.Errorf("ParseIdentities read an SSH private key file as %d identities", len(read))
		}
		ids = append(ids, id)
	}
	if v.Passphrase != "" {
		ids = append(ids, fanseal.NewScryptIdentity([]byte(v.Passphrase)))
	}
	for _, text := range v.AgeIdentities {
		u, err := newAgeX25519(text)
		if err != nil {
			return nil, nil, nil, err
		}
		ids = append(ids, fanseal.NewWrappedIdentity(u))
	}
	if len(v.Recipients) > 0 {
		return nil, nil, nil, errors.New("recipient text accepted")
	}
	o := &fanseal.Opener{}
	if v.Keyring != "" {
		id, err := parseIdentity(v.Keyring)
		if err != nil {
			return nil, nil, nil, err
		}
		peer, err := fanseal.ParseRecipient(v.Peer)
		if err != nil {
			return nil, nil, nil, err
		}
		if o.Keyring, err = fanseal.NewKeyring(id, 0); err != nil {
			return nil, nil, nil, err
		}
		if err := o.Keyring.AddPeer(peer); err != nil {
			return nil, nil, nil, err
		}
		o.Keyring.SetEpoch(v.Epoch)
	}
	envelope := v.Body
	if v.Armored {
		var err error
		if envelope, err = io.ReadAll(armor.NewReader(bytes.NewReader(v.Body))); err != nil {
			return nil, nil, nil, err
		}
	}
	return o, envelope, ids, nil
}

// parseIdentity parses identity text, which must be the identity's one
// text in its spelling, fanseal's or age's; age's X25519 identities hold
// any 32 bytes, which a reader clamps, so one of them reads back as age's
// text of the clamped scalar, the same key.
func parseIdentity(text string) (*fanseal.Identity, error) {
	id, err := fanseal.ParseIdentity(text)
	if err != nil {
		return nil, err
	}
	back := id.String()
	if strings.HasPrefix(text, "AGE-") {
		if back, err = id.AgeString(); err != nil {
			return nil, err
		}
		if id.Suite() == fanseal.X25519 && back != text {
			again, err := fanseal.ParseIdentity(back)
			if err != nil || again.Recipient().String() != id.Recipient().String() {
				return nil, fmt.Errorf("age identity text reads back as text of another key (%v)", err)
			}
			return id, nil
		}
	}
	if back != text {
		return nil, fmt.Errorf("identity text accepted, but it reads back as other text")
	}
	return id, nil
}

// ageX25519 is age's X25519 identity (c2sp.org/age, "X25519 recipient
// type") as a SecretUnwrapper, so that the library opens the type 0x08
// stanzas of the kit's age-identity lines without age's code.
type ageX25519 struct {
	sk *ecdh.PrivateKey
}

// newAgeX25519 reads age's AGE-SECRET-KEY-1… text, through the library's
// parser, which reads age's spelling of an X25519 identity.
func newAgeX25519(text string) (*ageX25519, error) {
	if !strings.HasPrefix(text, "AGE-SECRET-KEY-1") {
		return nil, fmt.Errorf("age-identity %q is not an age X25519 identity", text)
	}
	id, err := parseIdentity(text)
	if err != nil {
		return nil, err
	}
	// The scalar, from the identity's fanseal text (FORMAT.md, "Keys").
	const prefix = "FANSEAL_SECRET_X25519_"
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.TrimPrefix(id.String(), prefix))
	if err != nil || len(raw) != 36 {
		return nil, fmt.Errorf("age-identity: the identity's text does not hold a scalar (%v)", err)
	}
	sk, err := ecdh.X25519().NewPrivateKey(raw[:32])
	if err != nil {
		return nil, err
	}
	return &ageX25519{sk: sk}, nil
}

func (a *ageX25519) UnwrapSecret(stanzas []*fanseal.AgeStanza) ([]byte, error) {
	pk := a.sk.PublicKey().Bytes()
	for _, s := range stanzas {
		// As age's X25519 identity: another type is not its; a malformed
		// X25519 stanza, whoever it was for, is an error of its own.
		if s.Type != "X25519" {
			continue
		}
		if len(s.Args) != 1 || len(s.Body) != 32 {
			return nil, errors.New("invalid X25519 recipient block")
		}
		share, err := base64.RawStdEncoding.Strict().DecodeString(s.Args[0])
		if err != nil || len(share) != 32 {
			return nil, fmt.Errorf("invalid X25519 recipient block: %v", err)
		}
		p, err := ecdh.X25519().NewPublicKey(share)
		if err != nil {
			continue
		}
		shared, err := a.sk.ECDH(p)
		if err != nil {
			continue
		}
		key, err := hkdf.Key(sha256.New, shared, append(share, pk...), "age-encryption.org/v1/X25519", 32)
		if err != nil {
			return nil, err
		}
		aead, err := chacha20poly1305.New(key)
		if err != nil {
			return nil, err
		}
		if secret, err := aead.Open(nil, make([]byte, 12), s.Body, nil); err == nil {
			return secret, nil
		}
	}
	return nil, fanseal.ErrNotRecipient
}
