package fanseal

import (
	"errors"
	"testing"
)

// TestSessionCacheServesOnlyRecipients: a cache shared by a Sealer and an
// Opener opens an envelope for a recipient, and for no one else: not for
// a caller without identities, not for a stranger.
func TestSessionCacheServesOnlyRecipients(t *testing.T) {
	xs, xr := identities(t, X25519, 4)
	for _, anon := range []bool{false, true} {
		c := NewSessionCache(0, 0)
		sealer, opener := &Sealer{Cache: c, Anonymous: anon}, &Opener{Cache: c}
		env := mustSeal(t, sealer, []byte("secret"), xr[0], xr[1])
		if _, err := opener.OpenBytes(env); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("anonymous=%v, no identity: %v", anon, err)
		}
		if _, err := opener.OpenBytes(env, xs[3]); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("anonymous=%v, a stranger: %v", anon, err)
		}
		strangerRing, _ := NewKeyring(xs[2], 0)
		if _, err := (&Opener{Cache: c, Keyring: strangerRing}).OpenBytes(env); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("anonymous=%v, a stranger's keyring: %v", anon, err)
		}
		for _, id := range xs[:2] {
			before := keyAgreements.Load()
			got, err := opener.OpenBytes(env, xs[3], id)
			if err != nil || string(got) != "secret" {
				t.Fatalf("anonymous=%v, a recipient: %q, %v", anon, got, err)
			}
			if n := keyAgreements.Load() - before; n != 0 {
				t.Errorf("anonymous=%v: a recipient's open from the cache cost %d key agreements", anon, n)
			}
		}
		recipientRing, _ := NewKeyring(xs[1], 0)
		if _, err := (&Opener{Cache: c, Keyring: recipientRing}).OpenBytes(env); err != nil {
			t.Errorf("anonymous=%v, a recipient's keyring: %v", anon, err)
		}
	}
}

// TestSessionCacheAnonymousOpeners: an anonymous envelope cached by one
// recipient's open serves that recipient, and not another identity until
// it has opened the envelope itself.
func TestSessionCacheAnonymousOpeners(t *testing.T) {
	xs, xr := identities(t, X25519, 3)
	env := mustSeal(t, &Sealer{Anonymous: true}, []byte("x"), xr[0], xr[1])
	o := &Opener{Cache: NewSessionCache(0, 0)}
	mustOpenWith(t, o, env, xs[0])
	if _, err := o.OpenBytes(env, xs[2]); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("a stranger after a recipient's open: %v", err)
	}
	before := keyAgreements.Load()
	mustOpenWith(t, o, env, xs[1]) // trial decryption: not served by xs[0]'s entry
	if n := keyAgreements.Load() - before; n == 0 {
		t.Fatal("the cache served a second identity without a key agreement")
	}
	before = keyAgreements.Load()
	mustOpenWith(t, o, env, xs[0])
	mustOpenWith(t, o, env, xs[1])
	if n := keyAgreements.Load() - before; n != 0 {
		t.Fatalf("repeated opens by both recipients cost %d key agreements", n)
	}
}

func mustOpenWith(t *testing.T, o *Opener, env []byte, ids ...*Identity) {
	t.Helper()
	if _, err := o.OpenBytes(env, ids...); err != nil {
		t.Fatal(err)
	}
}
